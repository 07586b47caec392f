"""Names vulture cannot see called; read by tests/test_dead_code.py."""
