from pkg import helper

helper()
