"""treegym/ALFWorld-v0: ALFWorld's text household games on a pure-Python interpreter of its PDDL domain."""
