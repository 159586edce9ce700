"""How ``bench_overhead``'s results are printed and judged: issue 37's two targets, which ratio each
judges (:func:`target_of`), and one env's agents as table lines (:func:`format_overhead`)."""
from __future__ import annotations

from typing import Any

TARGET_RATIO = 2.5  # against the start state of the episode (issue 37)
DEPTH_TARGET = 2.0  # at the expanded node, for searches from a depth-8 start state (issue 37)


def target_of(depth: int) -> tuple[str, float]:
    """Which ratio issue 37's target judges for searches from ``depth`` and its bound: from the start state
    (depth 0) ``ratio_cpu`` (against the start state) <= 2.5x; from a deeper state ``ratio_at_expansions_cpu``
    (against the search's own expansions: "at the expanded node") <= 2x."""
    return ("ratio_cpu", TARGET_RATIO) if depth == 0 else ("ratio_at_expansions_cpu", DEPTH_TARGET)


def format_overhead(env_id: str, r: dict[str, Any]) -> str:
    """One env's agents as table lines (microseconds per expansion, CPU medians, quartiles): both ratios,
    each naming its baseline, and the target verdict on the ratio it applies to (:func:`target_of`)."""
    b = r["baseline"]["cpu"]
    judged, target = target_of(r["depth"])
    depths = ", ".join(f"seed {s}: {d}" for s, d in r["depths"].items())
    lines = [f"{env_id}: searches from depth {r['depth']} ({depths}); env restore+step+snapshot at the start state "
             f"{b['median'] * 1e6:.1f} us [{b['p25'] * 1e6:.1f}-{b['p75'] * 1e6:.1f}] per cycle",
             f"  {'agent':<7} {'expansions':>10} {'framework us':>13} {'p25-p75':>17} {'timer us':>8} "
             f"{'env@exp us':>10} {'/start':>7} {'p25-p75':>11} {'/exp':>6} {'p25-p75':>11} {'wall /start /exp':>16}"]
    for agent, a in r["agents"].items():
        if "error" in a:
            lines.append(f"  {agent:<7} not measured: {a['error']}")
            continue
        f, e = a["framework"]["cpu"], a["expansion_env"]["cpu"]
        timer = a["timer_cpu_per_expansion"]
        start, exp = a["ratio"]["cpu"], a["ratio_at_expansions"]["cpu"]
        verdict = "ok" if a[judged] <= target else "OVER"
        lines.append(f"  {agent:<7} {a['expansions']['median']:>10.0f} {f['median'] * 1e6:>13.1f} "
                     f"{f['p25'] * 1e6:>8.1f}-{f['p75'] * 1e6:<8.1f} "
                     f"{'n/a' if timer is None else format(timer * 1e6, '.1f'):>8} {e['median'] * 1e6:>10.1f} "
                     f"{a['ratio_cpu']:>6.1f}x {start['p25']:>5.1f}-{start['p75']:<5.1f} "
                     f"{a['ratio_at_expansions_cpu']:>5.1f}x {exp['p25']:>5.1f}-{exp['p75']:<5.1f} "
                     f"{a['ratio_wall']:>9.1f}x {a['ratio_at_expansions_wall']:>4.1f}x"
                     f"  {verdict} ({'/start' if judged == 'ratio_cpu' else '/exp'}: target <= {target:g}x)")
    lines.append("  framework = (search CPU - LLM CPU) per expansion; timer = the LLM wrapper's own share of it; "
                 "env@exp = the env's restore+step+snapshot replaying the agent's searches' own expansions")
    lines.append("  /start = framework / the env's restore+step+snapshot at the start state (target <= "
                 f"{TARGET_RATIO:g}x from depth 0); /exp = framework / env@exp, at the expanded nodes (target <= "
                 f"{DEPTH_TARGET:g}x from depth > 0)")
    skipped = [f"{agent} {a['follow_on_share']:.0%}" for agent, a in r["agents"].items()
               if a.get("follow_on_share", 0) >= 0.25]
    if skipped:
        lines.append(f"  follow-on expansions ({', '.join(skipped)}): the search expanded the child it had just made "
                     "and skipped its restore; the replay skips it too")
    return "\n".join(lines)
