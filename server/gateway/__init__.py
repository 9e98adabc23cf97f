"""The keypad gateway: serial keypads in, the same table services as the websocket terminals."""
