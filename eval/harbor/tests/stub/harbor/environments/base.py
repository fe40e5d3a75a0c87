"""A stand-in for Harbor's ExecResult (tests only)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ExecResult:
    stdout: str | None = None
    stderr: str | None = None
    return_code: int = 0
