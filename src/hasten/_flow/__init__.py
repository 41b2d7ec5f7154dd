"""How a request flows through the server, apart from the HTTP objects it is made of: what is
decided per app (``ServeContext``) and the contracts between layers, the transports that carry
its bytes, the gates that admit it (in flight, overload), the wait for its body, backpressure
on what it streams, and what runs after its response. It sits beside ``_http``, in its layer.
"""
