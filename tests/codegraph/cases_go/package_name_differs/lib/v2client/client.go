package client

func Dial() { connect() }

func connect() {}
