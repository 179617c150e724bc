"""Telling a person the loop needs them (ADR 0020): the daemon's notify worker and its channels.

settings.py  the user's [notify] (config.toml) narrowed by the repository's
message.py   what is sent: item, title, inbox kind, question and options, through the secret scanner
channels.py  desktop (notify-send / osascript), ntfy, Telegram sendMessage, Slack webhook
state.py     what was sent, held and failing, in the repository's state dir
worker.py    one pass: each inbox entry sent once, again only when it changes or a reminder is due
probe.py     `hall notify test`, `hall notify setup ntfy` and the doctor's row
"""
