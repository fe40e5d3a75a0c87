"""Find the slowest requests in the service logs."""
import re

LINE = re.compile(r"request (?P<id>\w+) took (?P<value>[\d.]+)(?P<unit>ms|s)\b")


def to_ms(value, unit):
    """A logged duration in milliseconds."""
    return float(value)


def slowest(lines, n=3):
    """The n slowest requests as (id, milliseconds), slowest first."""
    found = []
    for line in lines:
        match = LINE.search(line)
        if match:
            found.append((match["id"], to_ms(match["value"], match["unit"])))
    found.sort(key=lambda pair: pair[1])
    return found[:n]
