"""The emulator console of the fake adb server (``adb emu ...`` connects to the port in the serial).

A greeting, then one reply per line: ``avd snapshot save|load|list|delete NAME``
(``OK`` / ``KO: ...``), ``kill`` (the emulator exits: the server's device goes
away until ``FakeAdbServer.power_on``), ``help``, ``ping``, ``auth ...`` (any
token), ``quit``. A line longer than ``MAX_LINE`` bytes ends the connection. Loading a name never saved but naming a configuration
(``test_env_100``) boots that configuration's base state, as B-MoCA's
per-configuration snapshots do.
"""
from __future__ import annotations

from typing import Any

from .adb_wire import MAX_LINE

from treegym.envs.android.device import all_configs
from treegym.envs.android.sim.handset import initial_state


def serve_console(server: Any, rfile: Any, wfile: Any) -> None:
    """One console connection: a greeting, then one reply per command line until ``quit``."""
    if not server.powered:
        return  # a killed emulator has no console
    wfile.write(b"Android Console: type 'help' for a list of commands\r\nOK\r\n")
    wfile.flush()
    while True:
        raw = rfile.readline(MAX_LINE + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE:
            wfile.write(f"KO: line longer than {MAX_LINE} bytes; closing\r\n".encode())
            wfile.flush()
            return
        line = raw.decode("utf-8", "replace").strip()
        server.requests.append(f"console:{line}")
        if not line:
            continue
        if line == "quit" or line == "exit":
            return
        if line == "kill":
            wfile.write(b"OK: killing emulator, bye bye\r\n")
            wfile.flush()
            with server.lock:
                server.powered = False
            return
        reply = console_command(server, line.split())
        wfile.write(reply.encode())
        wfile.flush()

def console_command(server: Any, argv: list[str]) -> str:
    """The reply to one console command (``OK`` / ``KO: ...`` lines, CRLF)."""
    if argv[0] == "auth" or argv[0] == "ping":
        return "OK\r\n"
    if argv[0] == "help":
        return "Android console commands:\r\n    avd snapshot save|load|list|delete\r\n    kill\r\nOK\r\n"
    if argv[:2] != ["avd", "snapshot"] or len(argv) < 3:
        return "KO: unknown command, try 'help'\r\n"
    op, name = argv[2], (argv[3] if len(argv) > 3 else "")
    with server.lock:
        named = server.phone.named
        if op == "list":
            rows = "".join(f"{n}\r\n" for n in sorted(named))
            return "List of snapshots present on all disks:\r\n" + rows + "OK\r\n"
        if not name:
            return "KO: missing snapshot name\r\n"
        if op == "save":
            named[name] = server.phone.state
            return "OK\r\n"
        if op == "load":
            if name in named:
                server.phone.state = named[name]
            elif name in all_configs():
                server.phone.state = initial_state(all_configs()[name])
            else:
                return f"KO: snapshot '{name}' does not exist\r\n"
            return "OK\r\n"
        if op == "delete":
            if named.pop(name, None) is None:
                return f"KO: snapshot '{name}' does not exist\r\n"
            return "OK\r\n"
    return f"KO: unknown snapshot operation '{op}'\r\n"
