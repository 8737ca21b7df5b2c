package calc

var Sub = sub
