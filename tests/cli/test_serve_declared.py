"""Servers a family offers are declared in its own package (SERVERS) and looked up by ``treegym serve``:
the shipped ones (WebShop site, tool APIs, fake adb) are found, importable and shown, and the fake adb
started by the CLI answers the adb host protocol."""
from __future__ import annotations

import importlib
import os
import signal
import socket
import subprocess
import sys

import pytest

import treegym.envs as te


def test_the_shipped_servers_are_declared_by_their_families():
    by_name = {e.name: e for e in te.servers()}
    assert {"webshop", "tools", "fake-adb"} <= set(by_name)
    assert by_name["webshop"].env_id == "treegym/WebShop-v0" and by_name["webshop"].default_port == 3000
    assert by_name["tools"].env_id == "treegym/ToolBench-v0" and by_name["fake-adb"].kind == "tcp"
    for entry in by_name.values():
        assert entry.env_id in te.env_ids()
        module, _, attr = entry.factory.partition(":")
        assert callable(getattr(importlib.import_module(module), attr)), entry
    import treegym.scripts.cmd_serve as cmd_serve

    assert not hasattr(cmd_serve, "SITES")  # nothing central lists them


def test_a_server_refuses_options_it_does_not_take(capsys):
    from treegym.scripts.cli import main

    assert main(["serve", "tools", "--opt", "catalog=x", "--port", "0"]) == 2
    assert "tools takes no option catalog" in capsys.readouterr().err
    assert main(["serve", "webshop", "--env-opt", "x=1", "--port", "0"]) == 2
    assert "use --opt" in capsys.readouterr().err


def test_list_shows_the_servers(capsys):
    from treegym.scripts.cli import main

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "servers the families offer" in out
    assert any(line.split()[:2] == ["fake-adb", "treegym/BMoCA-v0"] for line in out.splitlines())


def test_treegym_serve_fake_adb_answers_the_adb_protocol():
    cmd = [sys.executable, "-m", "treegym.scripts.cli", "serve", "fake-adb", "--port", "0",
           "--opt", "config=test_env_104"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("fake adb server on 127.0.0.1:"), (line, proc.poll())
        port = int(line.split("127.0.0.1:", 1)[1].split()[0])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            request = b"host:version"
            sock.sendall(b"%04x" % len(request) + request)
            assert sock.recv(4) == b"OKAY"
    finally:
        os.kill(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            pytest.fail("treegym serve fake-adb did not stop on Ctrl-C")
    assert proc.returncode == 0
