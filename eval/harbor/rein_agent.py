"""rein as a Harbor installed agent.

Harbor imports this class with ``--agent-import-path rein_agent:ReinAgent`` (put this
folder on PYTHONPATH). It installs rein in the task container with install-rein.sh
(offline when given a bundle from pack-rein.sh and, if the image lacks Node 20, a Node
tarball), runs ``rein-harbor-run "<instruction>"`` unattended, and reads back what rein
wrote into the agent log directory: ``trajectory.json`` (ATIF-v1.7) and
``rein-summary.json`` (outcome, tokens, cost).

Written for Harbor's installed-agent interface (``install`` + ``run`` with
``exec_as_root`` / ``exec_as_agent``, ``get_version_command``, results read in
``populate_context_post_run`` after Harbor has downloaded the logs); the older template
interface (``_install_agent_template_path`` + ``create_run_agent_commands``, Harbor before
2026-03-24) still works. The task's MCP servers (``[[environment.mcp_servers]]``, which
Harbor hands every agent as ``mcp_servers``) reach rein as its rules' ``mcp.servers``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent

try:  # the template interface's command type; absent from newer Harbor versions
    from harbor.agents.installed.base import ExecInput
except ImportError:  # pragma: no cover - depends on the Harbor version
    ExecInput = None  # type: ignore[assignment,misc]

HERE = Path(__file__).resolve().parent
STAGED_DIR = "/installed-agent"
PREFIX = "/opt/rein"
CONTAINER_LOGS = "/logs/agent"
SUMMARY_FILE = "rein-summary.json"
TRAJECTORY_FILE = "trajectory.json"
TASK_RULES_FILE = "rein-task-rules.json"
# The endpoint settings rein reads, passed on from Harbor's agent environment (--ae) or the host.
ENDPOINT_VARIABLES = ("OPENAI_BASE_URL", "OPENAI_API_KEY")
# A server name becomes part of rein's tool names: these characters only, at most 40.
SERVER_NAME = re.compile(r"[^A-Za-z0-9_-]")


class ReinAgent(BaseInstalledAgent):
    """Runs rein inside a Harbor task container and reports its trajectory and usage."""

    SUPPORTS_ATIF: bool = True

    def __init__(
        self,
        logs_dir: Path,
        model_name: str | None = None,
        *args: Any,
        bundle: str | None = None,
        node_tarball: str | None = None,
        test_cmd: str | None = None,
        rein_args: str | None = None,
        keep_provider: bool | str = False,
        exit_zero_unfinished: bool | str = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(logs_dir, *args, model_name=model_name, **kwargs)
        self._bundle = Path(bundle).expanduser() if bundle else None
        self._node_tarball = Path(node_tarball).expanduser() if node_tarball else None
        for given in (self._bundle, self._node_tarball):
            if given is not None and not given.is_file():
                raise ValueError(f"rein agent: file not found: {given}")
        self._test_cmd = test_cmd
        self._rein_args = rein_args
        self._keep_provider = _flag(keep_provider)
        self._exit_zero_unfinished = _flag(exit_zero_unfinished)
        self._staged = False
        self.task_mcp_servers, self.mcp_notes = task_mcp_servers(getattr(self, "mcp_servers", None) or [])
        if self.task_mcp_servers and rein_args and re.search(r"(^|\s)--config(\s|=|$)", rein_args):
            raise ValueError(
                "rein agent: the task has MCP servers, which rein gets as its rules file (--config); "
                "rein_args names another --config: put the servers in that file's mcp.servers instead"
            )
        logger = getattr(self, "logger", None)
        for note in self.mcp_notes:
            if logger is not None:
                logger.warning(note)

    @staticmethod
    def name() -> str:
        return "rein"

    def version(self) -> str | None:
        return getattr(self, "_version", None) or None

    def get_version_command(self) -> str | None:
        """Harbor runs this after install() to fill version() (and result.json's agent_info.version)."""
        return f"{PREFIX}/bin/rein --version"

    def parse_version(self, stdout: str) -> str:
        lines = [line.strip() for line in stdout.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def container_logs(self) -> str:
        """Where rein writes in the container: Harbor's per-role log dir (``/logs/agent`` unless Harbor says otherwise)."""
        return str(getattr(self, "environment_logs_dir", None) or CONTAINER_LOGS)

    # -- install -----------------------------------------------------------------

    @property
    def _install_agent_template_path(self) -> Path:
        # Plain bash that Jinja renders unchanged (the script holds no Jinja delimiters).
        return HERE / "install-rein.sh"

    def staged_files(self) -> list[tuple[Path, str]]:
        """Host files to upload before the install script runs, with their container paths."""
        files = [(HERE / "install-rein.sh", f"{STAGED_DIR}/install-rein.sh"), (HERE / "run-rein.sh", f"{STAGED_DIR}/run-rein.sh")]
        if self._bundle:
            files.append((self._bundle, f"{STAGED_DIR}/rein-bundle.tgz"))
        if self._node_tarball:
            files.append((self._node_tarball, f"{STAGED_DIR}/{self._node_tarball.name}"))
        if self.task_mcp_servers:
            files.append((self.write_task_rules(), f"{STAGED_DIR}/{TASK_RULES_FILE}"))
        return files

    def write_task_rules(self) -> Path:
        """The rules file that gives rein the task's MCP servers, written beside Harbor's setup logs on the host."""
        path = Path(self.logs_dir) / "setup" / TASK_RULES_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"mcp": {"servers": self.task_mcp_servers}}, indent=2) + "\n", encoding="utf-8")
        return path

    async def _stage(self, environment: Any) -> None:
        if self._staged:
            return
        command = f"mkdir -p {STAGED_DIR} {shlex.quote(self.container_logs())}"
        # The newer interface runs commands as the task's user by default: the folders are made as root.
        if hasattr(self, "exec_as_root"):
            await self.exec_as_root(environment, command=command)
        else:
            await environment.exec(command=command)
        for source, target in self.staged_files():
            await environment.upload_file(source_path=source, target_path=target)
        self._staged = True

    async def setup(self, environment: Any) -> None:
        """Stage the tarballs, then Harbor's own setup: install() (or the rendered template), then the version command."""
        await self._stage(environment)
        await super().setup(environment)

    async def install(self, environment: Any) -> None:
        """Newer interface: stage the tarballs and run the install script as root."""
        await self._stage(environment)
        await self.exec_as_root(environment, command=f"bash {STAGED_DIR}/install-rein.sh", timeout_sec=600)

    # -- run ---------------------------------------------------------------------

    def rein_model(self) -> str | None:
        """The model name rein sends: Harbor's ``provider/model`` without the provider, unless kept."""
        model = self._env("REIN_MODEL") or self.model_name
        if not model:
            return None
        return model if self._keep_provider or "/" not in model else model.split("/", 1)[1]

    def _env(self, name: str) -> str | None:
        """A setting from Harbor's agent environment (``--ae``, which wins) or the host's."""
        get = getattr(self, "_get_env", None)
        value = get(name) if callable(get) else None
        return value or os.environ.get(name) or None

    def run_env(self) -> dict[str, str]:
        env = {name: value for name in ENDPOINT_VARIABLES if (value := self._env(name))}
        env["REIN_LOGS_DIR"] = self.container_logs()
        model = self.rein_model()
        if model:
            env["REIN_MODEL"] = model
        if self._test_cmd:
            env["REIN_TEST_CMD"] = self._test_cmd
        if self._rein_args:
            env["REIN_ARGS"] = self._rein_args
        if self.task_mcp_servers:
            env["REIN_CONFIG"] = f"{STAGED_DIR}/{TASK_RULES_FILE}"
        if self._exit_zero_unfinished:
            env["REIN_HARBOR_EXIT_ZERO_UNFINISHED"] = "1"
        return env

    def run_command(self, instruction: str) -> str:
        return f'export PATH="{PREFIX}/bin:$PATH"; rein-harbor-run {shlex.quote(instruction)}'

    def create_run_agent_commands(self, instruction: str) -> list[Any]:
        """Template interface: one command, the instruction quoted for the shell."""
        if ExecInput is None:  # pragma: no cover - newer Harbor calls run() instead
            raise RuntimeError("this Harbor version has no ExecInput: it calls run()")
        return [ExecInput(command=self.run_command(instruction), env=self.run_env())]

    async def run(self, instruction: str, environment: Any, context: Any) -> None:
        """Runs rein. The context is not read here: on environments that are not mounted (Daytona, E2B, Modal, Runloop,
        GKE) rein's files reach the host only when Harbor downloads the logs after run(), and Harbor then calls
        populate_context_post_run while the context is still empty."""
        if hasattr(self, "exec_as_agent"):
            await self.exec_as_agent(environment, command=self.run_command(instruction), env=self.run_env())
            return
        await super().run(instruction, environment, context)

    # -- results -----------------------------------------------------------------

    def populate_context_post_run(self, context: Any) -> None:
        """Token counts and cost from rein's summary file, else from the ATIF trajectory's final metrics.

        With neither file on the host yet, the context is left as it is (empty), so Harbor asks again after its next
        download instead of recording that nothing was there.
        """
        summary = _read_json(Path(self.logs_dir) / SUMMARY_FILE)
        summary = summary if isinstance(summary, dict) else None
        trajectory = _read_json(Path(self.logs_dir) / TRAJECTORY_FILE)
        metrics = trajectory.get("final_metrics") if isinstance(trajectory, dict) else None
        metrics = metrics if isinstance(metrics, dict) else None
        if summary is None and metrics is None:
            return
        usage = summary.get("usage") if summary else None
        if isinstance(usage, dict):
            context.n_input_tokens = _int(usage.get("promptTokens"))
            context.n_cache_tokens = _int(usage.get("cachedTokens"))
            context.n_output_tokens = _int(usage.get("completionTokens"))
            cost = usage.get("costUsd")
            context.cost_usd = float(cost) if _number(cost) and cost > 0 else None
        elif metrics is not None:
            context.n_input_tokens = _int(metrics.get("total_prompt_tokens"))
            context.n_cache_tokens = _int(metrics.get("total_cached_tokens"))
            context.n_output_tokens = _int(metrics.get("total_completion_tokens"))
            cost = metrics.get("total_cost_usd")
            context.cost_usd = float(cost) if _number(cost) and cost >= 0 else None
        facts = {key: summary[key] for key in ("status", "exitCode", "steps", "reason") if key in summary} if summary else {}
        if trajectory and isinstance(trajectory.get("session_id"), str):
            facts["session_id"] = trajectory["session_id"]
        if self.mcp_notes:
            facts["mcp_left_out"] = list(self.mcp_notes)
        if facts:
            metadata = dict(getattr(context, "metadata", None) or {})
            metadata["rein"] = facts
            context.metadata = metadata


def task_mcp_servers(servers: list[Any]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Harbor's ``MCPServerConfig`` list as rein's ``mcp.servers``, and a note for each server left out.

    stdio servers run as the task's own programs in its container (the container is the sandbox, as for Harbor's
    Claude Code and Codex agents); streamable-http ones (Harbor also writes ``http``) are rein's ``type: "http"``.
    rein does not speak the older SSE transport: such a server is left out, and said so.
    """
    rules: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for server in servers:
        name = str(_field(server, "name") or "")
        transport = str(_field(server, "transport") or "sse")
        transport = "streamable-http" if transport == "http" else transport
        command, url = _field(server, "command"), _field(server, "url")
        if transport == "stdio" and isinstance(command, str) and command:
            entry: dict[str, Any] = {"command": command, "args": [str(arg) for arg in _field(server, "args") or []], "sandbox": False}
        elif transport == "streamable-http" and isinstance(url, str) and url:
            entry = {"type": "http", "url": url}
        else:
            missing = "" if transport not in ("stdio", "streamable-http") else f" without a {'command' if transport == 'stdio' else 'url'}"
            reason = f"transport {transport!r}{missing}: rein connects to stdio and streamable-http servers"
            notes.append(f"rein agent: the task's MCP server {name!r} is left out ({reason})")
            continue
        rules[_server_key(name, rules)] = entry
    return rules, notes


def _server_key(name: str, taken: dict[str, Any]) -> str:
    """A name rein takes (letters, digits, _ and -, at most 40), unique among the servers."""
    base = SERVER_NAME.sub("_", name)[:40] or "server"
    key, n = base, 2
    while key in taken:
        suffix = f"_{n}"
        key, n = base[: 40 - len(suffix)] + suffix, n + 1
    return key


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _flag(value: Any) -> bool:
    """A boolean kwarg as Harbor's ``--agent-kwarg key=value`` may pass it: a bool, or a string such as "false"."""
    if isinstance(value, str):
        if value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if value.strip().lower() in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"rein agent: expected true or false, not {value!r}")
    return bool(value)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


__all__ = ["ReinAgent", "task_mcp_servers"]
