%% The Erlang side of `mote-bench remote`: an echo and a sink to measure against, and a
%% client that measures round trips and one-way throughput to another node's echo and sink.
-module(remote_bench).
-export([serve/0, client/4]).

%% Registers `echo` ({From, Msg} -> From ! Msg) and `sink` (counts messages; {sync, From}
%% answers {count, N} and starts again), then waits until the node is stopped.
serve() ->
    register(echo, spawn(fun echo/0)),
    register(sink, spawn(fun() -> sink(0) end)),
    io:format("serving~n"),
    receive stop -> ok end.

echo() ->
    receive {From, Msg} -> From ! Msg, echo() end.

sink(N) ->
    receive
        {sync, From} -> From ! {count, N}, sink(0);
        _ -> sink(N + 1)
    end.

%% Measures `Kind` (pingpong | throughput) with `N` messages of `Size` (small: an integer;
%% large: a 64 KiB binary) against Peer's echo or sink, and prints its time.
client(Peer, Kind, N, Size) ->
    Payload = case Size of
                  small -> 42;
                  large -> binary:copy(<<7>>, 65536)
              end,
    true = net_kernel:connect_node(Peer),
    run(Kind, Peer, Payload, 100),
    T0 = erlang:monotonic_time(nanosecond),
    run(Kind, Peer, Payload, N),
    T1 = erlang:monotonic_time(nanosecond),
    io:format("RESULT ns=~p~n", [T1 - T0]).

run(pingpong, Peer, Payload, N) -> pingpong(Peer, Payload, N);
run(throughput, Peer, Payload, N) ->
    send_n({sink, Peer}, Payload, N),
    {sink, Peer} ! {sync, self()},
    receive {count, N} -> ok end.

pingpong(_, _, 0) -> ok;
pingpong(Peer, Payload, N) ->
    {echo, Peer} ! {self(), Payload},
    receive _ -> ok end,
    pingpong(Peer, Payload, N - 1).

send_n(_, _, 0) -> ok;
send_n(To, Payload, N) -> To ! Payload, send_n(To, Payload, N - 1).
