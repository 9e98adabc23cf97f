"""The keypad's settings, kept on its flash in ``keypad.json``: the table number (set once with
mpremote: ``exec "import kp_config; kp_config.save(table=7)"``), the link and the pins.

    transport  "usb": USB CDC serial to the gateway's computer; "uart": a UART (RS-232 or a
               USB-serial adapter); "rs485": the UART through an RS-485 transceiver, on the bus
    address    the bus address (1-127; default the table number)
"""

import json

PATH = "/keypad.json"
DEFAULTS = {
    "table": 1,
    "language": "en",
    "transport": "usb",
    "address": None,
    "baud": 9600,
    "uart": 0,
    "uart_tx": 0,
    "uart_rx": 1,
    "rs485_de": 2,
    "i2c": 0,
    "i2c_sda": 4,
    "i2c_scl": 5,
    "lcd_address": 0x27,
    "rows": [6, 7, 8, 9],
    "cols": [10, 11, 12, 13],
}


def load(path=PATH):
    settings = dict(DEFAULTS)
    try:
        with open(path) as f:
            settings.update(json.load(f))
    except (OSError, ValueError):
        pass
    return settings


def save(path=PATH, **changes):
    settings = load(path)
    for name in changes:
        if name not in DEFAULTS:
            raise ValueError("no setting " + name)
    settings.update(changes)
    with open(path, "w") as f:
        json.dump(settings, f)
    return settings
