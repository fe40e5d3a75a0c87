"""Layered settings: defaults, then the user's file, then environment overrides."""


def merge(base, override):
    """Deep-merge two dicts; `override` wins; neither input is modified."""
    result = base
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge(result[key], value)
        else:
            result[key] = value
    return result


def parse_env(environ, prefix="APP_"):
    """APP_DB__HOST=x -> {'db': {'host': 'x'}}: double underscores separate levels."""
    settings = {}
    for name, value in environ.items():
        if not name.startswith(prefix):
            continue
        path = name[len(prefix):].lower().split("_")
        node = settings
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    return settings
