module motepeer

go 1.19
