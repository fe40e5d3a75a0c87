"""A stand-in for Harbor's AgentContext (tests only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class AgentContext:
    n_input_tokens: int | None = None
    n_cache_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None
    rollout_details: list[Any] | None = None
    metadata: dict[str, Any] | None = field(default=None)

    def is_empty(self) -> bool:
        return all(value is None for value in self.__dict__.values())
