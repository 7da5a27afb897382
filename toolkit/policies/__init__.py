"""What may wrap a call: approval, concurrency and rate limits, retries, and middleware.

It imports the layers below, through `run`; it names the tools it guards by what it reads of them (protocols), never the `Tool` class.
"""
