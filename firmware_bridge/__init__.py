"""The station's devices: the card shoe's serial link and the overhead camera.

Everything here speaks to hardware (or to a simulator that speaks the hardware's protocol)
and hands typed, timestamped events to the table core.
"""
