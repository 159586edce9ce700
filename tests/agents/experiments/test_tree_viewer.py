"""What the tree viewer gets from a search (per-node step and LLM exchanges) and the standalone page it writes:
self-contained, old trees accepted, hostile text kept inside its script element."""
from __future__ import annotations

import json
import re

from treegym.agents.experiments.evaluation import RunConfig
from treegym.agents.experiments.report.treeview import write_tree_page
from treegym.agents.experiments.sweep import run_sweep, with_tree_dir
from treegym.scripts.cli import main as cli_main

LLM = "synthetic:p_correct=0.6,judge_acc=0.8,value_noise=0.3"


def _embedded(page: str) -> dict:
    m = re.search(r"<script type='application/json' id='tree-data'>(.*?)</script>", page, re.S)
    assert m, "the tree is not embedded"
    return json.loads(m.group(1))


def test_saved_trees_keep_each_nodes_step_and_llm_exchanges(tmp_path):
    run_sweep([with_tree_dir(RunConfig(env_id="treegym/Game24-v0", agent="bfs", llm_spec=LLM, task_ids=[903],
                                       budget=200), tmp_path / "trees")],
              tmp_path / "run.jsonl", progress=False, log=lambda m: None)
    record = json.loads((tmp_path / "run.jsonl").read_text().splitlines()[0])
    tree = json.loads(open(record["agent_stats"]["tree_json"]).read())
    nodes = tree["nodes"]
    assert all(n["step"] == n["depth"] for n in nodes)  # the search starts at reset: env step = depth
    kinds = {c["kind"] for n in nodes for c in n["llm"]}
    assert {"propose", "value"} <= kinds
    # calls are kept on the nodes they were about (the episode's count also covers searches from later steps)
    assert 0.5 * record["llm_calls"] < sum(len(c["answers"]) for n in nodes for c in n["llm"]) <= record["llm_calls"]
    proposer = next(n for n in nodes if any(c["kind"] == "propose" for c in n["llm"]))
    call = next(c for c in proposer["llm"] if c["kind"] == "propose")
    assert call["prompt"] and call["answers"][0]
    children = [n["action"] for n in nodes if n["parent"] == proposer["id"]]
    assert children and all(a in call["answers"][0] for a in children)  # the proposals made these children


def test_standalone_page_is_self_contained_and_takes_old_trees(tmp_path):
    old = {"format": "treegym-search-tree/1", "algorithm": "dfs", "env_id": "treegym/WebShop-v0", "value_name": "value",
           "chosen": 1, "nodes": [
               {"id": 0, "parent": None, "action": None, "observation": "start", "thought": "", "reward": 0,
                "terminal": False, "success": False, "depth": 0, "visits": 1, "value": 0.5, "chosen": True},
               {"id": 1, "parent": 0, "action": "click[</script><script>alert(1)</script>]",
                "observation": "<b>bold</b> & </script>", "thought": "", "reward": 1, "terminal": True,
                "success": True, "depth": 1, "visits": 1, "value": 1.0, "chosen": True}]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    out = tmp_path / "old.html"
    assert cli_main(["tree", str(path), "--html", str(out)]) == 0
    page = out.read_text()
    assert _embedded(page)["tree"] == old  # hostile text stays inside the JSON, intact
    assert page.count("<script") == 3  # the viewer, the data, the opener: nothing injected
    assert not re.search(r"""(src|href)\s*=\s*['"]?https?:""", page)  # nothing fetched from the network
    written = write_tree_page(old, tmp_path / "sub" / "x.html", title="T")
    assert written.exists() and "<title>T</title>" in written.read_text()


def test_tree_command_refuses_bad_input_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{\"nodes\": []}")
    assert cli_main(["tree", str(bad), "--html", str(tmp_path / "o.html")]) == 2
    err = capsys.readouterr().err
    assert "not a treegym search tree" in err and err.count("\n") == 1 and not (tmp_path / "o.html").exists()
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"nodes": [{"id": 0, "parent": None}]}))
    assert cli_main(["tree", str(good), "--html", str(tmp_path)]) == 2  # a directory is not a file to write
    assert "cannot write" in capsys.readouterr().err


def test_report_embeds_trees_up_to_its_limits_and_gives_the_rest_pages_of_their_own(tmp_path):
    from treegym.agents.experiments.report.build import build_report

    run_sweep([with_tree_dir(RunConfig(env_id="treegym/Game24-v0", agent="elo", llm_spec=LLM, task_ids=[900, 901, 902],
                                       budget=10), tmp_path / "trees")], tmp_path / "run.jsonl",
              progress=False, log=lambda m: None)
    rep = build_report([tmp_path / "run.jsonl"], tmp_path / "rep", figures=False, max_trees=1)
    page = (rep.out_dir / "index.html").read_text()
    assert page.count("class='open-tree'") == 1 and page.count("class='tree-page'") == 2
    assert "2 search trees open on pages of their own" in page
    records = [json.loads(x) for x in (tmp_path / "run.jsonl").read_text().splitlines()]
    for i, r in enumerate(records[1:], start=1):
        own = (rep.out_dir / "trees" / f"tree-{i}.html").read_text()
        assert _embedded(own)["tree"] == json.loads(open(r["agent_stats"]["tree_json"]).read())
