"""B-MoCA: Android control tasks on a simulated phone (or a device over ADB) as ``treegym/BMoCA-v0``."""
from ..core.env_entry import EnvEntry, ServerEntry

ENV_SPECS = (EnvEntry("treegym/BMoCA-v0", "treegym.envs.android.env:BMoCAEnv", name="bmoca", order=5),)
SERVERS = (ServerEntry(
    "fake-adb", "treegym.servers.android.fake_adb:create_server", env_id="treegym/BMoCA-v0", kind="tcp",
    default_port=5038, about="the simulated phone behind the adb host protocol and an emulator console "
                             "(--opt config=test_env_100)",
    banner="fake adb server on {host}:{port}  (export ADB_SERVER_SOCKET=tcp:{host}:{port}; adb devices; "
           "Ctrl-C to stop)"),)
