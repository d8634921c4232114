echo demo TBD
