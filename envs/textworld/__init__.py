"""treegym/TextWorld-v0: TextWorld .z8 games on Jericho with native snapshots (optional extra treegym[textworld])."""
