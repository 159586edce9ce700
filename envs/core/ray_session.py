"""Starting or joining Ray for the code that spreads work over it (the experiments' episode executors, a
search's expansion workers): one place that does it, and refuses a second cluster. Ray itself is optional
(the ``ray`` extra) and imported only when called."""
from __future__ import annotations

import socket
from typing import Any


def _same_cluster(address: str, current: str, here: str) -> bool:
    """Whether ``host:port`` names the GCS at ``current``; this machine's addresses (loopback, ``localhost``,
    its IP ``here``) are one host."""
    def host_port(a: str) -> tuple[str, str]:
        host, _, port = a.rpartition(":")
        try:
            host = socket.gethostbyname(host)
        except OSError:
            pass
        return ("local" if host.startswith("127.") or host == here else host), port

    return not address.startswith("ray://") and host_port(address) == host_port(current)


def ray_session(address: str | None, user: str) -> Any:
    """Ray, joined to ``address`` or started locally (``user`` names what needs it, in messages). A process
    already connected to Ray keeps that session when ``address`` is None or ``auto`` or names it; naming
    another cluster is refused with a ValueError: silently running on the wrong cluster is worse, and
    shutting the session down would cancel the actors other code holds in it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(f"{user} needs Ray: pip install 'treegym[ray]'") from None
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:  # a local instance sized to the machine; the callers' workers decide the parallelism
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        return ray
    if address and address != "auto":
        current = ray.get_runtime_context().gcs_address
        if not _same_cluster(address, current, ray.util.get_node_ip_address()):
            raise ValueError(f"ray_address={address!r}: this process is already connected to the Ray at {current}; "
                             f"call ray.shutdown() before starting {user}, or drop ray_address to use that one")
    return ray
