"""The embedded model's server process: llama.cpp's OpenAI-compatible HTTP server on 127.0.0.1.

Started by :class:`treegym.agents.llm.local.server.LocalLLMServer` as
``python child.py RUNTIME --model PATH --alias NAME --port N --threads N --ctx N --slots N``
(run by its file path, so the child imports nothing of treegym). ``RUNTIME`` is

* ``xllamacpp``: llama.cpp's own C++ server from the ``xllamacpp`` binary wheel,
  started in this process; ``SIGTERM`` stops it cleanly (its destructor waits
  for the running request) and the process exits 0;
* ``llama-cpp-python``: ``python -m llama_cpp.server`` (the compiled fallback), run in this process.

Either way a watchdog thread exits the process when its parent (the treegym
process) dies without stopping it, so a server is never left orphaned. A thread,
not ``prctl(PR_SET_PDEATHSIG)``: that fires when the *thread* that forked exits,
and a worker thread may start the shared server.
"""
from __future__ import annotations

import argparse
import os
import runpy
import signal
import sys
import threading
import time


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _serve_xllamacpp(args: argparse.Namespace) -> int:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = args.slots
    params.kv_unified = args.slots > 1  # slots share one KV cache, so each can still use the whole window
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.verbosity = 2  # warnings, errors and the per-request timings, not the per-token debug lines
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        server = xllamacpp.Server(params)  # loads the model and listens; raises when it cannot
    except RuntimeError as exc:
        print(f"treegym local child: xllamacpp could not start the server ({exc}); "
              f"the lines above say why (e.g. failed to load model)", file=sys.stderr, flush=True)
        return 1
    print(f"treegym local child: xllamacpp serving {args.alias} on {server.listening_address}", flush=True)
    while not stop.wait(3600):
        pass
    del server  # ~Server: finish the running request, stop the HTTP loop
    return 0


def _serve_llama_cpp_python(args: argparse.Namespace) -> int:
    if args.slots != 1:
        print("treegym local child: llama-cpp-python's server has one slot; --slots is ignored", file=sys.stderr)
    sys.argv = ["llama_cpp.server", "--model", args.model, "--model_alias", args.alias,
                "--host", "127.0.0.1", "--port", str(args.port),
                "--n_threads", str(args.threads), "--n_threads_batch", str(args.threads), "--n_ctx", str(args.ctx)]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
    return 0


SERVERS = {"xllamacpp": _serve_xllamacpp, "llama-cpp-python": _serve_llama_cpp_python}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="serve a GGUF model on 127.0.0.1 (the embedded treegym LLM)")
    ap.add_argument("runtime", choices=sorted(SERVERS))
    ap.add_argument("--model", required=True)
    ap.add_argument("--alias", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ctx", type=int, required=True, help="context window per slot, in tokens")
    ap.add_argument("--slots", type=int, default=1, help="requests decoded at once (xllamacpp only)")
    args = ap.parse_args(argv)
    parent = int(os.environ.get("TREEGYM_LOCAL_PARENT_PID") or os.getppid())
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="treegym-parent-watchdog").start()
    return SERVERS[args.runtime](args)


if __name__ == "__main__":
    sys.exit(main())
