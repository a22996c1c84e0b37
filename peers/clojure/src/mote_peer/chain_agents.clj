(ns mote-peer.chain-agents
  "chain on agents: M agents, each holding the next one as its state (the last holds main's
  inbox, a queue); an action forwards its message to the state and leaves it unchanged."
  (:require [mote-peer.agents :as agents]
            [mote-peer.chain-messages :as msgs]
            [mote-peer.common :as c])
  (:import [clojure.lang Agent]
           [java.util.concurrent BlockingQueue LinkedBlockingQueue]))

(set! *warn-on-reflection* true)

(defn run
  "`dispatch` is `send` or `send-off`. Main's inbox is an unbounded queue, standing in for a
  mailbox: the last agent's put never blocks an executor thread."
  [variant {:keys [m n]} {:keys [dispatch]}]
  (let [msg (msgs/message-fn variant)
        inbox (LinkedBlockingQueue.)
        ;; The action: pass m on to the state and keep the state. Main calls it directly
        ;; to send to the head.
        relay (fn relay [next m]
                (if (instance? Agent next)
                  (dispatch next relay m)
                  (.put ^BlockingQueue next m))
                next)
        start (c/now)
        head (reduce (fn [next _] (agent next :error-handler agents/on-error)) inbox (range m))]
    (dotimes [i n] (relay head (msg i)))
    (msgs/receive-all variant n #(.take inbox))
    {:wall-ns (- (c/now) start)}))
