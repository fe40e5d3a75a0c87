import unittest

from rotate import backups, to_delete

NAMES = ["backup-2024-01-03.tar.gz", "backup-2024-01-04.tgz", "notes.txt", "backup-2024-01-01.tar.gz", "backup-2024-01-02.tgz"]


class RotateCheck(unittest.TestCase):
    def test_both_extensions(self):
        self.assertEqual(len(backups(NAMES)), 4)
        self.assertEqual(backups(NAMES)[-1], "backup-2024-01-04.tgz")

    def test_keep(self):
        self.assertEqual(to_delete(NAMES, 3), ["backup-2024-01-01.tar.gz"])
        self.assertEqual(len(to_delete(NAMES, 0)), 4)
        self.assertEqual(to_delete(NAMES, 9), [])


if __name__ == "__main__":
    unittest.main()
