"""A lightweight stand-in for spaCy's NOUN/PROPN tags on product titles.

Upstream's reward type gate keeps the lower-cased tokens of a title that spaCy
tags NOUN or PROPN. Generated catalogs know their nouns exactly; for imported
upstream catalogs we must not run spaCy at run time (and its models are not on
PyPI), so :func:`title_nouns` applies simple rules at import time:

* tokens are runs of letters (with inner apostrophes/hyphens): digits are
  dropped ("12oz" -> "oz", "2-Pack" -> "pack"), so are single letters;
* function words, common title adjectives, colours, adverbs ("-ly") and a few
  marketing words are dropped (the word list below);
* everything else counts as a noun. In Title-Case product names spaCy tags
  most remaining words NOUN or PROPN, so this over-approximates mildly.

Deviation from upstream (documented): ``title_score`` can differ from the
spaCy value for titles with unusual adjectives or verbs; ``r_type`` changes
only when the score crosses 0.1 or 0.2.
"""
from __future__ import annotations

import re

_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")

NON_NOUNS = frozenset("""
a an the and or but nor for of in on at to by with without from into onto over under up down out off
as per via vs than then so if is are be was were been being it its this that these those i you he she we
they my your our their his her me us them who which what all any both each every some no not only
very more most less least much many few new best great good better high low large small big little
long short wide narrow tall mini extra super ultra premium professional deluxe classic original
lasting slim tinted stainless sleeveless fitted non-slip
natural organic pure fresh healthy free soft hard heavy light lightweight portable compact durable
waterproof water-resistant adjustable foldable reusable washable rechargeable wireless electric
digital automatic manual universal multi multipurpose perfect beautiful cute cool elegant modern
vintage rustic simple comfortable comfy warm hot cold dry wet quick fast slow easy full half double
single triple large-capacity non anti inch inches ft feet oz ounce ounces fl lb lbs ml mm cm kg g
count ct pcs pc piece pieces x xl xxl xs s m l
black white red blue green yellow pink purple grey gray brown beige ivory gold golden silver orange
navy teal khaki olive coral mint lavender charcoal burgundy tan cream clear transparent multicolor
men mens women womens unisex kids boys girls baby adult adults
""".split())


def title_nouns(name: str) -> tuple[str, ...]:
    """Lower-case nouns of a product title, in order, duplicates kept (as upstream's list)."""
    out = []
    for tok in _TOKEN.findall(name.lower()):
        tok = tok.replace("\u2019", "'")
        if tok.endswith("'s"):
            tok = tok[:-2]
        if len(tok) < 2 or tok in NON_NOUNS or (tok.endswith("ly") and len(tok) > 4):
            continue
        out.append(tok)
    return tuple(out)
