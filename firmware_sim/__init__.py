"""A simulated serial keypad: firmware state machine, battery-backed store, runner, line faults."""
