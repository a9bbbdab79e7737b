-- Yielding from the main chunk: there is no coroutine to yield to.
coroutine.yield(1)
