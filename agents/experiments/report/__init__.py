"""``treegym report``: run files to tables, figures, preference ranks and an HTML page.

Modules: :mod:`.records` (reading runs, cells), :mod:`.tables`, :mod:`.figures`,
:mod:`.preference`, :mod:`.html`, and :mod:`.build` which writes them all.
"""
