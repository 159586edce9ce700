"""ToolChain*-style tool tasks (home search, trip booking, spreadsheet, virtual home), judged on the final state."""
