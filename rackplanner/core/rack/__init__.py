"""One rack and its row: mounting, power per PDU line, outlets, network.

- ``mounting``: U positions front and rear, side channels, depth and weight
- ``electrical``: feed and PDU capacity, the 80% derating, line currents by phasors
- ``power``: cords to outlets, line and breaker loads, normal and failed-feed scenarios
- ``fabric``: ports by network, switch ports, cables and leaf/spine sizing
- ``report``: a rack's layout, power, network and findings together; ``power_text``: as text
"""
