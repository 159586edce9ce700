"""An OpenEnv-compatible server for any treegym env, with fork and restore in ``metadata``.

OpenEnv (``openenv-core``; used by TRL, SkyRL, torchforge) talks to an env
server over HTTP and a WebSocket session. This package serves any registered
treegym env id that way, so OpenEnv's own clients (``GenericEnvClient``, or a
typed ``EnvClient`` subclass) play it unchanged::

    from treegym.servers.openenv import create_openenv_app
    from treegym.servers.run import serve_in_thread

    with serve_in_thread(create_openenv_app("treegym/WebShop-v0")) as srv:
        from openenv.core import GenericEnvClient
        with GenericEnvClient(base_url=srv.url).sync() as env:
            r = env.reset(task_id=3)
            r = env.step({"action": "search[red shoes]"})

``treegym serve openenv --env ID`` runs it in the foreground. The env logic is the
env's own: each session holds one ``gym.make(env_id)`` env and forks with the
suite's ``snapshot`` / ``restore``; the server never re-implements a step.

Routes (OpenEnv's shapes)::

    GET  /health   -> {"status": "healthy"}
    GET  /metadata -> {name, description, version, ...}
    GET  /schema   -> {action, observation, state}      (JSON schemas)
    GET  /state    -> {episode_id, step_count, ...}     (a fresh env's, as OpenEnv does over HTTP)
    POST /reset    {seed?, episode_id?, task_id?, split?, restore?}          -> {observation, reward, done}
    POST /step     {action: {action: str, metadata?}, timeout_s?, request_id?} -> {observation, reward, done}
    WS   /ws       messages {"type": "reset"|"step"|"state"|"close", "data": {...}}
                   answers  {"type": "observation"|"state"|"error", "data": {...}}

An answer's ``observation`` holds the env's observation fields (``text``,
``instruction``, ``valid_actions``, ...; array fields such as B-MoCA's
screenshot are left out and named in ``metadata.treegym.omitted``), the step's
``info``, and ``metadata.treegym``: ``env_id``, ``task_id``, ``step`` (the env's
step counter), ``truncated``, and ``fork`` when a fork token was made.

**Fork and restore (the treegym extension).** A *fork token* names a snapshot
the server keeps (at most ``max_forks``, the least recently used dropped
first). Ask for one with ``fork: true`` (a reset argument, or
``action.metadata.treegym.fork``); start from one with ``restore: TOKEN`` (reset)
or ``action.metadata.treegym.restore`` (step: restore, then play the action).
Any session may restore any token of the same env id, so K sessions reset with
one token start a GRPO group from one state. Over WebSocket the session keeps
its env between messages; over HTTP each request uses a pooled env, so every
HTTP answer carries a fork token and ``/step`` needs ``restore`` (OpenEnv's
HTTP routes are stateless; the WebSocket is its session API).

Errors: HTTP 400/403/404/413/422/503 with ``{"detail": "..."}``; over WebSocket an
``error`` message with ``message`` and OpenEnv's ``code`` (``VALIDATION_ERROR``,
``CAPACITY_REACHED``, ...; a WebSocket's place is claimed before its handshake is answered, so a client
whose connect() returned holds one). A malformed *action string* is not an error: the
env answers it, as every treegym env does. Bind 127.0.0.1 (the default of
``servers/run.py``): the API has no authentication, and requests carrying a
non-loopback ``Origin`` (a web page) or ``Host`` (DNS rebinding) are refused, as are
cross-site browser requests (``Sec-Fetch-Site: cross-site`` or a foreign ``Referer``). A WebSocket
session idle for ``ws_idle_timeout`` seconds (default 3600, the HTTP sessions' ttl) is sent
``SESSION_EXPIRED`` and closed.

Modules: ``session.py`` (the protocol over envs: sessions, fork tokens,
answers, schemas), ``app.py`` (the Flask routes and the WebSocket).
"""
from .app import create_openenv_app
from .session import ForkStore, OpenEnvError, OpenEnvService, Session, plain

__all__ = ["create_openenv_app", "ForkStore", "OpenEnvError", "OpenEnvService", "Session", "plain"]
