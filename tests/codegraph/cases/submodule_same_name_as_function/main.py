from pkg import tools

tools()
