"""The Finance category of the mock tool catalog (see ``base.py`` for ``A``, ``P`` and the mock specs)."""
from __future__ import annotations

from typing import Any

from .base import A, D, N, P, S, get, search

TOOLS: list[dict[str, Any]] = [
    {"tool_name": "StockQuotes", "tool_description": "Latest stock prices and symbol lookup.",
     "api_list": [
         A("Get Quote", "Latest price of a stock.", [P("symbol", S, "Ticker symbol", "ACME")],
           **get("stocks", "symbol", "symbol", fields=["symbol", "name", "price"])),
         A("Search Symbol", "Find ticker symbols by company name.", [P("query", S, "Words in the company name", "Acme")],
           **search("stocks", {"query": ["name", "contains"]}, "symbol", fields=["symbol", "name", "sector"])),
     ]},
    {"tool_name": "MarketHistory", "tool_description": "Daily closing prices.",
     "api_list": [
         A("Historical Prices", "Closing prices over the last five trading days.", [P("symbol", S, "Ticker", "ACME")],
           **get("stocks", "symbol", "symbol", fields=["symbol", "history"])),
         A("Price Change", "Change over the last five trading days.", [P("symbol", S, "Ticker", "ACME")], handler="fin.price_change"),
     ]},
    {"tool_name": "CryptoTicker", "tool_description": "Cryptocurrency prices in USD.",
     "api_list": [
         A("Crypto Price", "Price of a coin.", [P("symbol", S, "Coin symbol, e.g. BTC", "BTC")], **get("coins", "symbol", "coin")),
         A("List Coins", "Supported coins.", handler="generic.list", table="coins"),
     ]},
    {"tool_name": "CompanyProfile", "tool_description": "Company facts.",
     "api_list": [
         A("Company Profile", "Sector, CEO, founding year and market cap.", [P("symbol", S, "Ticker", "ACME")],
           **get("stocks", "symbol", "symbol", fields=["symbol", "name", "sector", "ceo", "founded", "market_cap_billion"])),
         A("Sector Peers", "Companies in a sector.", [P("sector", S, "Sector", "Technology")],
           **search("stocks", {"sector": ["sector", "ieq"]}, "symbol", fields=["symbol", "name"])),
     ]},
    {"tool_name": "Brokerage", "tool_description": "Your brokerage account: portfolio and trades at the latest price.",
     "api_list": [
         A("Get Portfolio", "Cash and holdings.", handler="fin.portfolio"),
         A("Buy Stock", "Buy shares at the latest price.", [P("symbol", S, "Ticker", "ACME"), P("shares", N, "Number of shares", 1)],
           method="POST", handler="fin.buy", mutates=True),
         A("Sell Stock", "Sell shares at the latest price.", [P("symbol", S, "Ticker", "ACME"), P("shares", N, "Number of shares", 1)],
           method="POST", handler="fin.sell", mutates=True),
     ]},
    {"tool_name": "LoanCalc", "tool_description": "Loan and savings calculators.",
     "api_list": [
         A("Monthly Payment", "Monthly payment of an amortized loan.",
           [P("principal", N, "Loan amount", 10000), P("annual_rate_percent", N, "Yearly interest rate in percent", 5), P("months", N, "Term in months", 36)],
           handler="fin.loan_payment"),
         A("Compound Interest", "Future value of savings.",
           [P("principal", N, "Deposit", 1000), P("annual_rate_percent", N, "Yearly rate in percent", 3), P("years", N, "Years", 5)],
           [P("compounds_per_year", N, "Compounding periods per year", 12)], handler="fin.compound"),
     ]},
    {"tool_name": "TaxEstimator", "tool_description": "Income tax estimate with progressive brackets.",
     "api_list": [A("Estimate Income Tax", "Tax owed on a yearly income.", [P("income", N, "Yearly income in USD", 60000)], handler="fin.tax"),
                  A("Tax Brackets", "The brackets used.", handler="generic.list", table="tax_brackets")]},
    {"tool_name": "BankAccount", "tool_description": "Your bank accounts and transfers between them.",
     "api_list": [
         A("List Accounts", "Accounts with balances.", handler="fin.accounts"),
         A("Account Balance", "Balance of one account.", [P("account_id", S, "Account id, e.g. ACC-CHK", "ACC-CHK")], handler="fin.account_balance"),
         A("Transfer Funds", "Move money between your accounts.",
           [P("from_account", S, "Source account id", "ACC-CHK"), P("to_account", S, "Target account id", "ACC-SAV"), P("amount", N, "Amount in USD", 100)],
           [P("memo", S, "Note")], method="POST", handler="fin.transfer", mutates=True),
         A("List Transfers", "Transfers made.", handler="world.list", collection="transfers"),
     ]},
    {"tool_name": "FXRates", "tool_description": "Reference exchange rates.",
     "api_list": [A("Latest Rates", "All rates against a base currency.", [], [P("base", S, "Base currency", "USD")], handler="fx.latest"),
                  A("Convert", "Convert an amount.", [P("amount", N, "Amount", 100), P("from_currency", S, "From", "USD"), P("to_currency", S, "To", "EUR")],
                    handler="fx.convert")]},
    {"tool_name": "MarketCalendar", "tool_description": "Exchange trading days.",
     "api_list": [A("Is Trading Day", "Whether the exchange is open on a date.", [P("date", D, "Date", "2026-03-06")], handler="fin.trading_day"),
                  A("Next Trading Day", "The next open day after a date.", [P("date", D, "Date", "2026-03-06")], handler="fin.next_trading_day")]},
    {"tool_name": "Dividends", "tool_description": "Dividend data.",
     "api_list": [A("Dividend Per Share", "Yearly dividend per share.", [P("symbol", S, "Ticker", "ACME")],
                    **get("stocks", "symbol", "symbol", fields=["symbol", "dividend_per_share"]))]},
    {"tool_name": "TradeLog", "tool_description": "History of your brokerage trades.",
     "api_list": [A("List Trades", "All trades.", handler="world.list", collection="trades"),
                  A("Get Trade", "One trade.", [P("trade_id", S, "Trade id", "TRD-0001")], handler="world.get", collection="trades",
                    param="trade_id", what="trade")]},
]
