"""Backup rotation: which archives to delete so that only the newest `keep` remain."""
import re

NAME = re.compile(r"^backup-\d{4}-\d{2}-\d{2}\.tar\.gz$")


def backups(names):
    """The backup archives among `names`, oldest first; other files are ignored."""
    return sorted(name for name in names if NAME.match(name))


def to_delete(names, keep):
    """Archives to delete: every backup except the newest `keep`."""
    if keep < 0:
        raise ValueError("keep must be >= 0")
    ordered = backups(names)
    return ordered[:-keep]
