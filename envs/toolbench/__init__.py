"""ToolBench-style tool-use tasks on offline, deterministic, stateful mock services (see README.md)."""
from ..core.env_entry import EnvEntry, ServerEntry

ENV_SPECS = (EnvEntry("treegym/ToolBench-v0", "treegym.envs.toolbench.env:ToolBenchEnv", name="toolbench", order=2),)
SERVERS = (ServerEntry(
    "tools", "treegym.servers.toolbench:create_app", env_id="treegym/ToolBench-v0", extra="tools", default_port=8080,
    about="the mock APIs: ToolBench /rapidapi, StableToolBench /virtual, RestBench /rest/tmdb|spotify, sessions",
    banner="tool server at {url}  (ToolBench: {url}/rapidapi, StableToolBench: SERVICE_URL={url}/virtual, "
           "a world per client: {url}/s/<session>/virtual, sessions: {url}/api/sessions, "
           "RestBench: {url}/rest/tmdb|spotify/... (RestGPT's spec: {url}/rest/tmdb/openapi.json); Ctrl-C to stop)"),)
