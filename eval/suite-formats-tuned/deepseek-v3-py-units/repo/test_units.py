import unittest

from units import describe, to_celsius, to_kelvin


class UnitsTest(unittest.TestCase):
    def test_freezing(self):
        self.assertEqual(to_celsius(32), 0)

    def test_boiling(self):
        self.assertAlmostEqual(to_celsius(212), 100, msg="Fahrenheit to Celsius multiplies by 5/9")

    def test_kelvin(self):
        self.assertAlmostEqual(to_kelvin(0), 273.15, msg="zero Celsius is 273.15 kelvin")

    def test_describe(self):
        self.assertEqual(describe(20), "20.0 °C (293.15 K)")


if __name__ == "__main__":
    unittest.main()
