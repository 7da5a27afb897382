"""The lowest layer: errors, lint findings, records, frozen containers, the logger, type aliases, string formats, patterns and words.

It imports nothing of toolkit's.
"""
