"""Where a call runs and what it may reach: worker threads, event loops, the host, `Context`, OpenTelemetry spans.

It imports the layers below, through `schema`.
"""
