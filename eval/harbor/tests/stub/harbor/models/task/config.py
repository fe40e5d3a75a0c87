"""A stand-in for Harbor's MCPServerConfig, a task's ``[[environment.mcp_servers]]`` entry (tests only)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class MCPServerConfig:
    name: str
    transport: str = "sse"
    url: str | None = None
    command: str | None = None
    args: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.transport == "http":
            self.transport = "streamable-http"
