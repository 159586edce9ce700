"""Issue 31's classes, fuzzed: text with no UTF-8 form or bytes that are not UTF-8 wherever text enters
(results files, task files, HTTP bodies), cross-site browser headers on every route of every server,
and adversarial SQLite files and slow or idle clients on the fake adb server.

Asserts: a results file never loses a record (every record appended is read back equal; a corrupted
file is refused with a message naming it, or read without losing an untouched record), task files
load or are refused with a one-line error, no server answers 5xx, every cross-site request is
refused with 403, a pushed alarms database is read or refused (never a hang or another exception)
and the adb server keeps answering. ``TREEGYM_FUZZ_SCALE`` / ``TREEGYM_FUZZ_SEED`` as everywhere.
"""
from __future__ import annotations

import json
import socket
import sqlite3
import threading
from pathlib import Path

import pytest

from fuzzing import ODD_TEXT, bad_utf8, count, garbage_actions, http_send, no_hang, rng_for, route_paths, tally

from treegym.agents.experiments.results_file import ResultsFile


# ----------------------------------------------------------------------------- results files
def _odd_record(rng, i: int) -> dict:
    texts = list(garbage_actions(rng, ["search[shoes]", "click[buy now]"], rng.randrange(1, 6)))
    return {"env_id": "treegym/Game24-v0", "agent": rng.choice(["react", "elo"]), "task_id": i, "seed": i,
            "success": rng.random() < 0.5, "actions": [str(t)[:3000] for t in texts],
            "error": rng.choice([None, rng.choice(ODD_TEXT)]), rng.choice(ODD_TEXT)[:40] or "k": rng.choice(ODD_TEXT)}


def test_results_files_keep_every_record_whatever_its_text(tmp_path, capsys):
    rng = rng_for("text:results-append")
    path = tmp_path / "r.jsonl"
    results = ResultsFile(path)
    written = [_odd_record(rng, i) for i in range(count(300))]
    for rec in written:
        results.append(rec)
        tally("records written")
    capsys.readouterr()
    back = ResultsFile(path).load()
    lost = len(written) - sum(1 for a, b in zip(written, back) if a == b)
    tally("records lost", lost)
    assert lost == 0 and len(back) == len(written)


def test_corrupted_results_files_are_refused_by_name_or_lose_nothing(tmp_path, capsys):
    rng = rng_for("text:results-corrupt")
    lines = [json.dumps({"task_id": i, "seed": i, "text": "ü" * (i % 7)}, ensure_ascii=False).encode() + b"\n"
             for i in range(12)]
    for n in range(count(200)):
        broken = list(lines)
        hit = rng.randrange(len(broken))
        kind = rng.randrange(4)
        if kind == 0:
            broken[hit] = bad_utf8(rng, broken[hit].decode().rstrip("\n")) + b"\n"
        elif kind == 1:
            broken[hit] = broken[hit][:rng.randrange(len(broken[hit]))]  # cut (a torn write, mid-file or last)
        elif kind == 2:
            broken[hit] = broken[hit].rstrip(b"\n")  # a newline lost
        else:
            broken[hit] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30))) + b"\n"
        path = tmp_path / f"c{n}.jsonl"
        path.write_bytes(b"".join(broken))
        tally("corrupted results files")
        try:
            got = no_hang(ResultsFile(path).load, what=f"load of {b''.join(broken)[:200]!r}")
        except ValueError as exc:
            assert str(path) in str(exc) and "\n" not in str(exc), exc
            assert path.read_bytes() == b"".join(broken), "a refused file is left as it was"
            continue
        untouched = [json.loads(x) for i, x in enumerate(broken) if i != hit]
        lost = sum(1 for rec in untouched if rec not in got)
        tally("records lost", lost)
        assert lost == 0, (kind, broken[hit])
    capsys.readouterr()


# ----------------------------------------------------------------------------- task files
def test_task_files_with_odd_text_load_or_are_refused_in_one_line(tmp_path):
    import gymnasium as gym

    import treegym.envs  # noqa: F401
    from treegym.envs.toolbench.tasks import load_query_file

    rng = rng_for("text:task-files")
    for n in range(count(30)):
        csv_path = tmp_path / f"24-{n}.csv"
        rows = [b"Rank,Puzzles", b"1,1 2 3 4", b"2," + bad_utf8(rng, "4 4 6 8") if n % 2 else
                b"2," + rng.choice(ODD_TEXT).encode("utf-8", "surrogatepass")]  # CESU bytes for a surrogate
        csv_path.write_bytes(b"\n".join(rows) + b"\n")
        tally("task files")
        try:
            env = gym.make("treegym/Game24-v0", data_path=str(csv_path))
            env.reset(seed=0, options={"task_id": 0})
            env.close()
        except ValueError as exc:  # TaskFileError is one
            assert str(csv_path) in str(exc) and "\n" not in str(exc).strip(), exc
        query_path = tmp_path / f"q-{n}.json"
        text = rng.choice(ODD_TEXT)
        query_path.write_bytes(bad_utf8(rng, '[{"query": "x"}]') if n % 2 else
                               json.dumps([{"query": text, "query_id": 1}]).encode())
        try:
            queries = load_query_file(query_path)
            assert queries[0]["query"] == text
        except ValueError as exc:
            assert str(query_path) in str(exc), exc


# ----------------------------------------------------------------------------- HTTP bodies and cross-site
def _apps():
    from treegym.servers.env_server import create_env_app
    from treegym.servers.toolbench import create_app as tools_app
    from treegym.servers.webshop import create_app as webshop_app

    apps = {"webshop": webshop_app(), "tools": tools_app(), "env-server": create_env_app("treegym/Game24-v0")}
    try:
        from treegym.servers.openenv import create_openenv_app

        apps["openenv"] = create_openenv_app("treegym/Game24-v0")
    except ImportError:
        pass
    return apps


BROWSER_SITES = ["cross-site", "same-site", "same-origin", "none", None, "CROSS-SITE", "bogus"]
REFERERS = [None, "http://evil.example/x", "http://localhost:1/", "http://127.0.0.1:2/", "file:///etc/passwd",
            "not a url", "http://[::1/", "http://\udcff/"]


def test_every_route_answers_odd_bodies_and_refuses_every_cross_site_request():
    from treegym.servers.run import serve_in_thread

    rng = rng_for("sites:routes")
    for name, app in _apps().items():
        routes = route_paths(app)
        with serve_in_thread(app) as srv:
            for _ in range(count(60)):
                method, path = rng.choice(routes)
                site, referer = rng.choice(BROWSER_SITES), rng.choice(REFERERS)
                headers = {k: v for k, v in (("Sec-Fetch-Site", site), ("Referer", referer)) if v is not None}
                kind = rng.randrange(3)
                if kind == 0:
                    body = bad_utf8(rng, '{"action": "search[x]", "seed": 1}')
                elif kind == 1:
                    body = json.dumps({"action": rng.choice(ODD_TEXT), "task_id": rng.choice(ODD_TEXT),
                                       "seed": 1}).encode()  # lone surrogates arrive as "\ud800" escapes
                else:
                    body = json.dumps({rng.choice(ODD_TEXT): rng.choice(ODD_TEXT)}).encode()
                status, raw = http_send(srv, method, path, body if method != "GET" else None,
                                        {"Content-Type": "application/json", **headers})
                assert status < 500, (name, method, path, headers, raw[:300])
                foreign = referer is not None and not referer.startswith(("http://localhost", "http://127.0.0.1"))
                if site == "cross-site" or foreign:
                    tally("cross-site requests")
                    assert status == 403 and b"cross-site" in raw, (name, method, path, headers, status, raw[:200])


# ----------------------------------------------------------------------------- adb: SQLite and clients
SQL_VALUES = ["1", "NULL", "'7'", "7.5", "-1", "9223372036854775807", "x'ff'", "'\u00fc'", "1e308", "(SELECT 1)"]


def _random_alarm_db(rng, path: Path) -> None:
    cols = ["_id", "hour", "minutes", "enabled", "daysofweek"]
    con = sqlite3.connect(path)
    kind = rng.randrange(5)
    if kind == 0:
        con.execute("CREATE VIEW alarm_templates AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r"
                    + (" LIMIT 100000000" if rng.random() < 0.5 else "") + ") SELECT n AS _id, 1 AS hour, 2 AS minutes,"
                    " 1 AS enabled, 0 AS daysofweek FROM r")
    elif kind == 1:
        con.execute("CREATE VIEW alarm_templates AS SELECT " + ", ".join(
            f"{rng.choice(SQL_VALUES)} AS {c}" for c in cols))
    elif kind == 2:
        con.execute("CREATE TABLE alarm_templates (" + ", ".join(f"{c}" for c in cols) + ")")
        for i in range(rng.randrange(0, 1500)):
            con.execute("INSERT INTO alarm_templates VALUES (" + ", ".join(
                rng.choice(SQL_VALUES) if rng.random() < 0.1 else str(i) for _ in cols) + ")")
    elif kind == 3:
        con.execute("CREATE TABLE alarm_templates (" + ", ".join(rng.sample(cols, rng.randrange(1, 5))) + ")")
    else:
        con.execute("CREATE TABLE other (x)")
    con.commit()
    con.close()


def test_adversarial_alarm_databases_are_read_or_refused():
    from treegym.envs.android.sim.storage import import_alarms

    rng = rng_for("adb:sqlite")
    tmp = Path(__import__("tempfile").mkdtemp())
    for n in range(count(40)):
        path = tmp / f"a{n}.db"
        _random_alarm_db(rng, path)
        data = path.read_bytes()
        if rng.random() < 0.2:  # a damaged file
            i = rng.randrange(len(data))
            data = data[:i] + bytes(rng.randrange(256) for _ in range(8)) + data[i + 8:]
        tally("alarm databases")
        try:
            alarms = no_hang(import_alarms, data, what=f"import_alarms of database {n}")
            assert all(0 <= a.hour < 24 and 0 <= a.minute < 60 for a in alarms)
        except ValueError as exc:
            assert "\n" not in str(exc)


def test_slow_idle_and_flooding_adb_clients_leave_the_server_answering():
    from treegym.envs.android.sim.phone import SimPhone
    from treegym.servers.android.fake_adb import FakeAdbServer

    rng = rng_for("adb:clients")
    with FakeAdbServer(SimPhone("test_env_100"), idle_timeout=0.3, max_connections=32) as srv:
        before = threading.active_count()
        for _ in range(count(20)):
            kind = rng.randrange(3)
            if kind == 0:  # a slow client: a request one byte at a time
                with socket.create_connection(("127.0.0.1", srv.port), timeout=120) as s:
                    for b in b"000chost:version":
                        s.sendall(bytes([b]))
                    assert no_hang(lambda: s.recv(12), what="slow host:version") == b"OKAY00040029"
            elif kind == 1:  # idle clients, more than the cap
                idle = [socket.create_connection(("127.0.0.1", port), timeout=120)
                        for port in [srv.port, srv.console_port] for _ in range(rng.randrange(1, 40))]
                for s in idle:
                    no_hang(lambda: s.recv(1 << 16), what="an idle connection")
                    s.close()
            else:  # a long line to the console
                with socket.create_connection(("127.0.0.1", srv.console_port), timeout=120) as s:
                    try:
                        s.sendall(b"avd snapshot list" + b"x" * rng.randrange(1, 300_000) + b"\n")
                    except OSError:
                        pass
            tally("adb clients")
            with socket.create_connection(("127.0.0.1", srv.port), timeout=120) as s:
                s.sendall(b"000chost:version")
                assert no_hang(lambda: s.recv(12), what="host:version") == b"OKAY00040029"
        for _ in range(100):
            if threading.active_count() <= before + 2:
                break
            no_hang(lambda: __import__("time").sleep(0.05), what="sleep")
        assert threading.active_count() <= before + 2, "connection threads ended"


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
