"""Shipped WebShop data (a package only so that wheels include the catalog files)."""
