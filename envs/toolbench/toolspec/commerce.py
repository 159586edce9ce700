"""The Commerce category of the mock tool catalog (see ``base.py`` for ``A``, ``P`` and the mock specs)."""
from __future__ import annotations

from typing import Any

from .base import A, CITY, LIMIT, N, P, S, get, search

TOOLS: list[dict[str, Any]] = [
    {"tool_name": "ShopCatalog", "tool_description": "Product catalog of an online store.",
     "api_list": [
         A("Search Products", "Search products by name, cheapest first.", [P("query", S, "Words in the product name", "earbuds")],
           [P("category", S, "Category"), P("max_price", N, "Highest price in USD"), LIMIT],
           **search("products", {"query": ["name", "contains"], "category": ["category", "ieq"], "max_price": ["price", "lte"]}, "price",
                    fields=["sku", "name", "brand", "category", "price", "rating"])),
         A("Get Product", "Details of a product.", [P("sku", S, "Product SKU, e.g. SKU-0001", "SKU-0001")],
           **get("products", "sku", "product", fields=["sku", "name", "brand", "category", "price", "rating", "weight_kg"])),
         A("Top Rated", "Best rated products in a category.", [P("category", S, "Category", "Electronics")], [LIMIT],
           **search("products", {"category": ["category", "ieq"]}, "-rating", fields=["sku", "name", "price", "rating"])),
     ]},
    {"tool_name": "ProductReviews", "tool_description": "Customer reviews of store products.",
     "api_list": [
         A("Get Reviews", "Reviews of a product.", [P("sku", S, "Product SKU", "SKU-0001")],
           **search("reviews", {"sku": ["sku", "ieq"]}, "review_id")),
         A("Review Summary", "Number of reviews and average stars.", [P("sku", S, "Product SKU", "SKU-0001")], handler="shop.review_summary"),
     ]},
    {"tool_name": "ShopCart", "tool_description": "Your shopping cart.",
     "api_list": [
         A("Add To Cart", "Add units of a product to the cart.", [P("sku", S, "Product SKU", "SKU-0001")], [P("quantity", N, "Units", 1)],
           method="POST", handler="shop.cart_add", mutates=True),
         A("Remove From Cart", "Remove a product from the cart.", [P("sku", S, "Product SKU", "SKU-0001")], method="POST",
           handler="shop.cart_remove", mutates=True),
         A("View Cart", "Cart lines and subtotal.", handler="shop.cart_view"),
         A("Clear Cart", "Empty the cart.", method="POST", handler="shop.cart_clear", mutates=True),
     ]},
    {"tool_name": "CouponBook", "tool_description": "Store coupons.",
     "api_list": [
         A("List Coupons", "All coupon codes and their rules.", handler="generic.list", table="coupons"),
         A("Validate Coupon", "Check a coupon against the current cart.", [P("code", S, "Coupon code", "SAVE10")], handler="shop.coupon_validate"),
     ]},
    {"tool_name": "ShopOrders", "tool_description": "Checkout and order management.",
     "api_list": [
         A("Checkout", "Place an order for the cart (an optional coupon).", [P("ship_to_country", S, "Destination country", "United States")],
           [P("coupon_code", S, "Coupon code")], method="POST", handler="shop.checkout", mutates=True),
         A("Get Order", "One order.", [P("order_id", S, "Order id, e.g. OR-0001", "OR-0001")], handler="world.get", collection="orders",
           param="order_id", what="order"),
         A("List Orders", "All your orders.", handler="world.list", collection="orders"),
         A("Cancel Order", "Cancel a placed order.", [P("order_id", S, "Order id", "OR-0001")], method="POST",
           handler="shop.order_cancel", mutates=True),
     ]},
    {"tool_name": "ShipQuote", "tool_description": "Shipping costs and parcel tracking.",
     "api_list": [
         A("Shipping Quote", "Cost to ship a parcel to a country.", [P("country", S, "Country", "France"), P("weight_kg", N, "Weight in kg", 2)],
           handler="shop.shipping_quote"),
         A("Track Order", "Shipping status of an order.", [P("order_id", S, "Order id", "OR-0001")], handler="shop.track"),
     ]},
    {"tool_name": "ReturnsDesk", "tool_description": "Returns for delivered orders.",
     "api_list": [
         A("Create Return", "Request a return for one item of an order.", [P("order_id", S, "Order id", "OR-0001"), P("sku", S, "SKU", "SKU-0001")],
           [P("reason", S, "Why")], method="POST", handler="shop.return_create", mutates=True),
         A("Get Return", "A return request.", [P("return_id", S, "Return id", "RT-0001")], handler="world.get", collection="returns",
           param="return_id", what="return"),
     ]},
    {"tool_name": "PriceTracker", "tool_description": "Price history of store products.",
     "api_list": [
         A("Price History", "Recent prices of a product.", [P("sku", S, "SKU", "SKU-0001")], handler="shop.price_history"),
         A("Deals Under", "Products at or below a price.", [P("max_price", N, "Highest price", 20)], [LIMIT],
           **search("products", {"max_price": ["price", "lte"]}, "price", fields=["sku", "name", "price"])),
     ]},
    {"tool_name": "Wishlist", "tool_description": "Your wishlist.",
     "api_list": [
         A("Add To Wishlist", "Save a product.", [P("sku", S, "SKU", "SKU-0001")], method="POST", handler="shop.wishlist_add", mutates=True),
         A("View Wishlist", "Saved products.", handler="world.list", collection="wishlist"),
         A("Remove From Wishlist", "Remove a product.", [P("sku", S, "SKU", "SKU-0001")], method="POST", handler="shop.wishlist_remove", mutates=True),
     ]},
    {"tool_name": "StoreLocator", "tool_description": "Physical stores and opening hours.",
     "api_list": [
         A("Find Stores", "Stores in a city.", [CITY], **search("stores", {"city": ["city", "ieq"]}, "store_id")),
         A("Store Hours", "Opening hours of a store.", [P("store_id", S, "Store id", "ST-1")], **get("stores", "store_id", "store")),
     ]},
    {"tool_name": "GiftCards", "tool_description": "Gift card balances and redemption.",
     "api_list": [
         A("Check Gift Card", "Balance of a gift card.", [P("card_number", S, "Card number", "GC-1000")], handler="shop.gift_check"),
         A("Redeem Gift Card", "Spend from a gift card.", [P("card_number", S, "Card number", "GC-1000"), P("amount", N, "Amount", 10)],
           method="POST", handler="shop.gift_redeem", mutates=True),
     ]},
    {"tool_name": "Inventory", "tool_description": "Warehouse stock levels.",
     "api_list": [A("Check Stock", "Units in stock for a product.", [P("sku", S, "SKU", "SKU-0001")], handler="shop.stock")]},
]
