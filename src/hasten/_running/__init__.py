"""Where work runs: the thread and process pools, a thread's hand-off (``submit``), the event
loop's clock, the blocking monitor, the lifeline of child processes. It imports no hasten module."""
