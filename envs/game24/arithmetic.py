"""Exact arithmetic for the Game of 24: number text, a safe tokenizer and parser.

Numbers are :class:`fractions.Fraction` throughout, so ``6 / (1 - 3/4)`` is
exactly 24. A number is written as an integer (``13``, ``-5``) or, when it is
not whole, as a fraction ``3/4`` / ``-3/4`` (no spaces around the slash); a
finite decimal (``0.75``) is read exactly as well.

Model output is never ``eval``-ed: :func:`tokenize` turns text into number,
operator and parenthesis tokens and :func:`parse_expression` is a recursive
descent parser over ``+ - * /``, unary minus and parentheses. Anything else is
a :class:`ParseError` whose message says what was wrong.

Harmless variations are normalised first (:func:`normalize`): ``×``, ``x``,
``X``, ``∗``, ``·`` mean times, ``÷`` and ``∕`` mean divide, Unicode minus and
dashes mean minus, full-width digits become ASCII, runs of spaces collapse and
a trailing period is dropped.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction

MAX_ACTION_CHARS = 500  # longer input is rejected before any parsing
MAX_NESTING = 32  # parentheses / unary minus depth the parser accepts

_OPERATORS = "+-*/"

_REPLACEMENTS = {
    "×": "*", "∗": "*", "·": "*", "⋅": "*", "✕": "*", "✖": "*",
    "÷": "/", "∕": "/", "⁄": "/",
    "−": "-", "–": "-", "—": "-", "‐": "-", "‒": "-",
    "（": "(", "）": ")", "＝": "=", "：": ":",
}


class ParseError(ValueError):
    """Text is not a well-formed arithmetic expression; the message says why."""


class EvaluationError(ValueError):
    """A well-formed expression cannot be evaluated (division by zero)."""


def format_number(x: Fraction) -> str:
    """``24``, ``-5``, ``3/4``, ``-7/2``: how numbers are shown and how steps write them."""
    if x.denominator == 1:
        return str(x.numerator)
    return f"{x.numerator}/{x.denominator}"


def normalize(text: str) -> str:
    """Map harmless spelling variants onto ASCII arithmetic (see module docstring)."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(_REPLACEMENTS.get(ch, ch) for ch in text)
    # "x"/"X" between operands means times; never inside a word.
    text = re.sub(r"(?<=[\d)\s])[xX](?=[\s\d(])", "*", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text.rstrip(".").strip()


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "op", "(", ")"
    text: str
    value: Fraction | None = None


_TOKEN_RE = re.compile(
    r"\s*(?:(?P<frac>\d+/\d+)(?![\d.])|(?P<num>\d+(?:\.\d+)?)|(?P<op>[-+*/])|(?P<paren>[()]))"
)


def tokenize(text: str) -> list[Token]:
    """Split normalised text into tokens; a fraction ``3/4`` written without spaces is one number."""
    tokens: list[Token] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None or m.end() == pos:
            bad = text[pos:].lstrip()[:20]
            raise ParseError(f"unexpected text {bad!r}; use numbers, + - * / and parentheses")
        if m.group("frac"):
            num, den = m.group("frac").split("/")
            if int(den) == 0:
                raise EvaluationError(f"{m.group('frac')} divides by zero")
            tokens.append(Token("num", m.group("frac"), Fraction(int(num), int(den))))
        elif m.group("num"):
            tokens.append(Token("num", m.group("num"), Fraction(m.group("num"))))
        elif m.group("op"):
            tokens.append(Token("op", m.group("op")))
        else:
            tokens.append(Token(m.group("paren"), m.group("paren")))
        pos = m.end()
    return tokens


# --------------------------------------------------------------------------- expression trees
@dataclass(frozen=True)
class Num:
    """A number literal as written (``text``) and its exact value."""

    value: Fraction
    text: str


@dataclass(frozen=True)
class Neg:
    operand: "Expr"


@dataclass(frozen=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"


Expr = Num | Neg | BinOp


def evaluate(expr: Expr) -> Fraction:
    """The exact value of ``expr``; :class:`EvaluationError` on division by zero."""
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Neg):
        return -evaluate(expr.operand)
    a, b = evaluate(expr.left), evaluate(expr.right)
    return apply_op(a, expr.op, b)


def apply_op(a: Fraction, op: str, b: Fraction) -> Fraction:
    """``a op b`` exactly; :class:`EvaluationError` when dividing by zero."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise EvaluationError(f"{format_number(a)} / 0 divides by zero")
    return a / b


def literals(expr: Expr) -> list[Fraction]:
    """The number literals of ``expr`` left to right; a fraction literal ``3/4`` counts as 3 and 4."""
    if isinstance(expr, Num):
        if "/" in expr.text:
            num, den = expr.text.split("/")
            return [Fraction(int(num)), Fraction(int(den))]
        return [expr.value]
    if isinstance(expr, Neg):
        return literals(expr.operand)
    return literals(expr.left) + literals(expr.right)


class _Parser:
    """Recursive descent: expr := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*;
    factor := '-' factor | number | '(' expr ')'."""

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.i = 0
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def parse(self) -> Expr:
        if not self.tokens:
            raise ParseError("empty expression")
        expr = self.expr()
        if self.peek() is not None:
            raise ParseError(f"unexpected {self.peek().text!r} after a complete expression")
        return expr

    def expr(self) -> Expr:
        node = self.term()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            node = BinOp(tok.text, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.factor()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "*/":
            self.take()
            node = BinOp(tok.text, node, self.factor())
        return node

    def factor(self) -> Expr:
        tok = self.peek()
        if tok is None:
            raise ParseError("expression ends where a number was expected")
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ParseError(f"expression nests deeper than {MAX_NESTING} levels")
        try:
            if tok.kind == "num":
                self.take()
                return Num(tok.value, tok.text)  # type: ignore[arg-type]
            if tok.kind == "op" and tok.text == "-":
                self.take()
                inner = self.factor()
                if isinstance(inner, Num):
                    return Num(-inner.value, "-" + inner.text)
                return Neg(inner)
            if tok.kind == "(":
                self.take()
                inner = self.expr()
                close = self.peek()
                if close is None or close.kind != ")":
                    raise ParseError("missing closing parenthesis")
                self.take()
                return inner
            raise ParseError(f"expected a number or '(' but found {tok.text!r}")
        finally:
            self.depth -= 1


def parse_expression(text: str) -> Expr:
    """Parse normalised ``text`` into an expression tree (never evaluates model text as code)."""
    return _Parser(tokenize(text)).parse()


def parse_number(text: str) -> Fraction:
    """One number as written in a claim or a left list: ``4``, ``-5``, ``3/4``, ``0.75``."""
    expr = parse_expression(text)
    if not isinstance(expr, Num):
        raise ParseError(f"{text!r} is not a single number")
    return expr.value
