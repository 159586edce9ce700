"""``treegym serve <env id or name>|<server>|openenv [--port P] [--host 127.0.0.1]``: the session server of
any registered env (``servers/env_server.py``), a server a family declares (``SERVERS`` in
``envs/<family>/__init__.py``: the WebShop site, the tool APIs, the fake adb, ...; looked up, never listed
here), or an OpenEnv-compatible server for any env (``--env ID``)."""
from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from .options import parse_options, positive_float, positive_int

BUILTIN = ("openenv",)        # servers for any env, not declared by a family
OPENENV_PORT = 8000
DEFAULT_ENV_PORT = 8100
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
GENERIC_OPTIONS = ("ttl", "max_sessions")  # passed to a declared server's factory when it accepts them


def _declared() -> tuple[Any, ...]:
    import treegym.envs as te

    return te.servers()


def register(subparsers: argparse._SubParsersAction) -> None:
    declared = _declared()
    listing = "; ".join(f"{e.name} ({e.about}, port {e.default_port})" for e in declared)
    p = subparsers.add_parser("serve", help="serve any env over HTTP (treegym serve <env id>), or a family's server "
                                           f"({', '.join(e.name for e in declared)}) or openenv",
                              description="Serve an env's sessions (reset/step/snapshot/restore/fork over JSON under "
                                          "/api/, what gym.make(id, server_url=...) drives): give its id or short name "
                                          f"(treegym list). Or a server a family offers: {listing}. Or openenv "
                                          "(OpenEnv's routes for --env ID).")
    p.add_argument("site", metavar="ENV_OR_SERVER",
                   help="a registered env id or short name (treegym list), or one of the servers "
                        f"{', '.join([e.name for e in declared] + list(BUILTIN))}")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; anything else exposes the site to your network)")
    p.add_argument("--port", type=int, default=None,
                   help=f"port (default: the server's own, e.g. {', '.join(f'{e.name} {e.default_port}' for e in declared)}; "
                        f"an env {DEFAULT_ENV_PORT}; 0 = any free port)")
    p.add_argument("--catalog", default=None, help="webshop: catalog directory (default: the shipped catalog)")
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                   help="a server's own option (repeatable), e.g. fake-adb --opt config=test_env_104")
    p.add_argument("--ttl", type=positive_float, default=3600.0, help="seconds an unused session lives (default 3600)")
    p.add_argument("--max-sessions", type=positive_int, default=10_000, help="live sessions at most (default 10000)")
    p.add_argument("--quiet", action="store_true", help="no access log line per request")
    p.add_argument("--env", default="treegym/WebShop-v0",
                   help="openenv: the env id to serve (default treegym/WebShop-v0); --max-sessions caps WebSocket sessions")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests whose Host/Origin is NAME (repeatable; '*' = any). By default only "
                        "127.0.0.1, localhost and ::1 (and --host) are answered, so web pages cannot drive the server")
    p.add_argument("--env-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="an env id: a make-kwarg of the served env (repeatable), e.g. data_path=my24.csv")
    p.add_argument("--expert", action="store_true",
                   help="answer GET /api/sessions/<id>/expert (the task's gold plan); off by default")
    p.set_defaults(func=run)


def apply_server_policy(args: argparse.Namespace) -> str | None:
    """--allow-host and --expert reach every app factory through the variables they read (servers/guard.py);
    returns what is wrong with a host name, or None."""
    import os
    import re

    from treegym.servers.guard import ALLOWED_HOSTS_ENV
    from treegym.servers.sessions import EXPERT_ENV

    hosts = [h for h in args.allow_host if h.strip()]
    if args.host not in ("0.0.0.0", "::", ""):
        hosts.append(args.host)
    for h in hosts:
        if h != "*" and not re.fullmatch(r"[A-Za-z0-9.:\[\]_-]{1,253}", h):
            return f"--host/--allow-host {h[:60]!r}: not a host name or address"
    if hosts:
        os.environ[ALLOWED_HOSTS_ENV] = ",".join(hosts)
    if args.expert:
        os.environ[EXPERT_ENV] = "1"
    return None


def stop_on_signals() -> None:
    """Ctrl-C (SIGINT) and ``kill`` (SIGTERM) both stop the server cleanly (exit status 0).

    A process started in the background by a non-interactive shell inherits SIGINT as
    *ignored*, and Python then installs no KeyboardInterrupt handler: ``kill -INT`` would
    be silently dropped and whoever waits for the server would hang."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread receives signals (and may set their handlers)

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)


def run(args: argparse.Namespace) -> int:
    stop_on_signals()
    try:
        problem = apply_server_policy(args)  # imports the servers, so Flask
    except ImportError as exc:
        print(f"treegym serve needs Flask, part of treegym's default install: pip install 'flask>=3.0' ({exc})",
              file=sys.stderr)
        return 2
    if problem:
        print(f"treegym serve: {problem}", file=sys.stderr)
        return 2
    import treegym.envs as te

    site = None if args.site in BUILTIN else te.server(args.site)
    env_id = None
    if site is None and args.site not in BUILTIN:
        env_id = te.resolve(args.site)
        if env_id is None:
            names = ", ".join(e.name or e.id for e in te.entries())
            servers = ", ".join([e.name for e in te.servers()] + list(BUILTIN))
            print(f"treegym serve: {args.site!r} is neither a registered env ({names}; or a full id, see treegym list) "
                  f"nor a server ({servers})", file=sys.stderr)
            return 2
    if args.port is None:
        args.port = site.default_port if site is not None else OPENENV_PORT if env_id is None else DEFAULT_ENV_PORT
    if not 0 <= args.port <= 65535:
        print(f"--port must be in 0..65535, got {args.port}", file=sys.stderr)
        return 2
    if env_id is not None:
        if args.opt:
            print("treegym serve <env>: give make-kwargs with --env-opt, not --opt", file=sys.stderr)
            return 2
        return run_env(args, env_id)
    if args.env_opt:
        print(f"treegym serve {args.site}: --env-opt applies to an env id, not to a server (use --opt)", file=sys.stderr)
        return 2
    if site is None:
        return run_openenv(args)
    return run_declared(site, args)


def _site_options(factory: Callable[..., Any], args: argparse.Namespace, site: Any) -> dict[str, Any] | str:
    """The keyword options ``factory`` is called with, or what is wrong with the user's ``--opt``."""
    import inspect

    params = inspect.signature(factory).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    options = {k: getattr(args, k) for k in GENERIC_OPTIONS if takes_any or k in params}
    given = parse_options(args.opt)
    if args.catalog is not None:
        given["catalog"] = args.catalog
    unknown = [k for k in given if not takes_any and k not in params]
    if unknown:
        known = ", ".join(k for k in params if k not in ("host", "port", *GENERIC_OPTIONS)) or "none"
        return f"{site.name} takes no option {', '.join(unknown)} (its options: {known})"
    return {**options, **given}


def run_declared(site: Any, args: argparse.Namespace) -> int:
    """``treegym serve <name>`` for a server a family declares (``ServerEntry``)."""
    import importlib

    module_name, _, attr = site.factory.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except ImportError as exc:
        need = f"pip install 'treegym[{site.extra}]'" if site.extra else "its dependencies"
        print(f"treegym serve {site.name} needs {need} ({exc})", file=sys.stderr)
        return 2
    options = _site_options(factory, args, site)
    if isinstance(options, str):
        print(f"treegym serve: {options}", file=sys.stderr)
        return 2
    if site.kind == "tcp":
        return _serve_tcp(site, factory, options, args)
    try:
        app = factory(**options)
    except Exception as exc:  # noqa: BLE001 - a catalog that does not load, a bad option value: one line, exit 1
        print(f"{site.failure}: {exc}", file=sys.stderr)
        return 1
    return serve_until_interrupted(app, args, lambda url: _banner(site, url, args))


def _banner(site: Any, url: str, args: argparse.Namespace, port: int | None = None) -> str:
    port = port if port is not None else int(url.rsplit(":", 1)[1])
    return site.banner.format(name=site.name, url=url, host=args.host, port=port)


def _serve_tcp(site: Any, factory: Callable[..., Any], options: dict[str, Any], args: argparse.Namespace) -> int:
    """A non-HTTP server (``kind="tcp"``): ``factory(host=, port=, ...).start()`` until Ctrl-C."""
    import time

    try:
        srv = factory(host=args.host, port=args.port, **options).start()
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port} ({exc}); pick another --port", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - e.g. an unknown configuration id
        print(f"{site.failure}: {exc}", file=sys.stderr)
        return 1
    try:  # (from here on, Ctrl-C stops the server cleanly)
        if args.host not in LOOPBACK_NAMES:
            print(f"warning: listening on {args.host}, reachable from other machines", file=sys.stderr)
        print(_banner(site, f"tcp://{args.host}:{srv.port}", args, srv.port), flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
    return 0


def serve_until_interrupted(app: Any, args: argparse.Namespace, banner: Callable[[str], str]) -> int:
    """Listen on ``args.host:args.port`` and serve ``app`` until Ctrl-C; 1 when the port cannot be bound."""
    from treegym.servers.run import BackgroundServer

    try:
        srv = BackgroundServer(app, args.host, args.port, quiet=args.quiet)
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port} ({exc}); pick another --port", file=sys.stderr)
        return 1
    try:  # the banner inside: a Ctrl-C right after it (a client read it and stops us) is a clean stop
        if args.host not in LOOPBACK_NAMES:
            print(f"warning: listening on {args.host}, reachable from other machines", file=sys.stderr)
        print(banner(srv.url), flush=True)
        srv.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server.server_close()
    return 0


def run_env(args: argparse.Namespace, env_id: str) -> int:
    """``treegym serve <env id>``: the generic session server of one registered env."""
    env_kwargs = parse_options(args.env_opt)
    try:
        from treegym.servers.env_server import create_env_app

        app = create_env_app(env_id, env_kwargs, ttl=args.ttl, max_sessions=args.max_sessions)
    except ImportError as exc:
        print(f"treegym serve {env_id} needs Flask and the env's extra ({exc}); see treegym list", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a missing extra, task data that does not load: one line, exit 2
        print(f"cannot serve {env_id}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    return serve_until_interrupted(
        app, args, lambda url: f"{env_id} sessions at {url}/api/  (play them with server_url={url!r}; "
                               "Ctrl-C to stop)")


def run_openenv(args: argparse.Namespace) -> int:
    """``treegym serve openenv --env ID``: OpenEnv's HTTP routes and WebSocket session for one env id."""
    create_openenv_app = _factory("treegym.servers.openenv", "create_openenv_app",
                                  "treegym serve openenv needs the openenv extra: pip install 'treegym[openenv]'")
    if create_openenv_app is None:
        return 2
    max_sessions = args.max_sessions if args.max_sessions != 10_000 else 64
    import treegym.envs as te

    args.env = te.resolve(args.env) or args.env  # a short name (treegym list) works too
    try:
        app = create_openenv_app(args.env, max_sessions=max_sessions)  # hosts: apply_server_policy
    except Exception as exc:  # unknown id, missing extra, a catalog that does not load: one line, exit 2
        print(f"cannot serve {args.env!r}: {exc}", file=sys.stderr)
        return 2
    return serve_until_interrupted(
        app, args, lambda url: f"OpenEnv server for {args.env} at {url}  (WebSocket {url.replace('http', 'ws')}/ws, "
                               f"HTTP /reset /step /state /schema /health; Ctrl-C to stop)")


def _factory(module: str, name: str, need: str) -> Callable[..., Any] | None:
    """``module.name``, or None after printing ``need`` when the module's extra is missing."""
    import importlib

    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:
        print(f"{need} ({exc})", file=sys.stderr)
        return None
