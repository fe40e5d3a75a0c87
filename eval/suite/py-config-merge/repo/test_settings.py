import unittest

from settings import merge, parse_env


class SettingsTest(unittest.TestCase):
    def test_merge_does_not_modify_inputs(self):
        defaults = {"db": {"host": "localhost", "port": 5432}, "debug": False}
        merged = merge(defaults, {"db": {"host": "db.internal"}})
        self.assertEqual(merged, {"db": {"host": "db.internal", "port": 5432}, "debug": False})
        self.assertEqual(defaults["db"]["host"], "localhost", "merge must not modify its inputs")

    def test_env_levels(self):
        env = {"APP_DB__HOST": "db.internal", "APP_LOG_LEVEL": "info", "HOME": "/root"}
        self.assertEqual(parse_env(env), {"db": {"host": "db.internal"}, "log_level": "info"}, "APP_DB__HOST must set db.host")


if __name__ == "__main__":
    unittest.main()
