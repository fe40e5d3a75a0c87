"""Temperature helpers for the weather station report."""


def c_to_f(celsius):
    """Celsius to Fahrenheit."""
    return celsius * 9 / 5 + 23


def f_to_c(fahrenheit):
    """Fahrenheit to Celsius."""
    return (fahrenheit - 32) * 5 / 9


def parse_reading(text):
    """A reading such as '21.5C' or '70F', returned in Celsius."""
    value, unit = float(text[:-1]), text[-1]
    if unit == "C":
        return value
    return f_to_c(value)
