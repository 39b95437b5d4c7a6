//! Which entropy profiles explain a RoCEv2 flow seen on the wire (being built, issue 16).
