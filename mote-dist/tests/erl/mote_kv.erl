%% A gen_server for the gen_server-call tests (tests/node_gen_call.rs): a key-value
%% store, plus a request that answers late.
-module(mote_kv).
-behaviour(gen_server).
-export([start/1, init/1, handle_call/3, handle_cast/2]).

%% Starts the server registered as Name, prints "ready" and waits (the -eval process
%% must not end, or the node would halt).
start(Name) ->
    {ok, Pid} = gen_server:start({local, Name}, ?MODULE, #{}, []),
    io:format("ready ~p~n", [Pid]),
    receive stop -> ok end.

init(State) -> {ok, State}.

handle_call({put, K, V}, _From, S) -> {reply, ok, S#{K => V}};
handle_call({get, K}, _From, S) -> {reply, maps:get(K, S, undefined), S};
handle_call({sleep, Ms}, From, S) ->
    %% Answer later, from another process, so the server keeps serving.
    spawn(fun() -> timer:sleep(Ms), gen_server:reply(From, {slept, Ms}) end),
    {noreply, S};
handle_call({stop, Reason}, _From, S) -> {stop, Reason, S};
handle_call(self, _From, S) -> {reply, self(), S}.

handle_cast({put, K, V}, S) -> {noreply, S#{K => V}};
handle_cast(_, S) -> {noreply, S}.
