import unittest

from settings import merge, parse_env


class SettingsCheck(unittest.TestCase):
    def test_merge(self):
        defaults = {"db": {"host": "localhost", "port": 5432}}
        override = {"db": {"port": 6543}, "debug": True}
        self.assertEqual(merge(defaults, override), {"db": {"host": "localhost", "port": 6543}, "debug": True})
        self.assertEqual(defaults, {"db": {"host": "localhost", "port": 5432}})
        self.assertEqual(override, {"db": {"port": 6543}, "debug": True})

    def test_env(self):
        env = {"APP_DB__HOST": "db", "APP_DB__PORT": "6543", "APP_DEBUG": "true", "APP_LOG_LEVEL": "info", "OTHER": "x"}
        self.assertEqual(parse_env(env), {"db": {"host": "db", "port": 6543}, "debug": True, "log_level": "info"})


if __name__ == "__main__":
    unittest.main()
