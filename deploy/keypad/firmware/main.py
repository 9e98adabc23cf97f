"""Started by MicroPython at power-on: the keypad (kp_board.run)."""

import kp_board

kp_board.run()
