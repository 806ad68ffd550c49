module example.com/m
