package main

func run() { prepare() }

func prepare() {}
