"""Temperature conversions for the weather station's daily report."""


def to_celsius(fahrenheit):
    return (fahrenheit - 32) * 9 / 5


def to_kelvin(celsius):
    return celsius + 273


def describe(celsius):
    return f"{celsius:.1f} °C ({to_kelvin(celsius):.2f} K)"
