(ns mote-peer.main
  "The Clojure peer of the mote-bench workloads (docs/workloads.md is the contract).

      mote-peer-clojure IMPL WORKLOAD VARIANT|- [k=v ...]
      mote-peer-clojure --version

  IMPL picks the implementation: `clojure_agents` and `clojure_agents_tuned` (agents),
  `clojure_async` and `clojure_async_buffered` (core.async). Exactly one RESULT line goes
  to stdout. A wrong answer exits 1, a usage error 2, and a workload this IMPL does not
  have exits 3 with `SKIP <why>` on stdout (the harness's skip convention)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [mote-peer.agents :as agents]
            [mote-peer.call :as call]
            [mote-peer.chain :as chain]
            [mote-peer.chain-agents :as chain-agents]
            [mote-peer.common :as c]
            [mote-peer.copy :as copy]
            [mote-peer.fanin :as fanin]
            [mote-peer.million :as million]
            [mote-peer.parsum :as parsum]
            [mote-peer.pingpong :as pingpong]
            [mote-peer.ring :as ring]
            [mote-peer.ring-agents :as ring-agents]
            [mote-peer.skynet :as skynet]
            [mote-peer.spawn :as spawn]
            [mote-peer.workers :as workers]))

(set! *warn-on-reflection* true)

(def workloads
  "The contract's table: variants (nil when none), params as [name default quick] in
  table order, an optional `validate` (nil or the usage error) and `fit` (makes the
  warm-up's sizes valid)."
  {"chain" {:variants ["int" "list20"] :params [[:m 10000 1000] [:n 10000 1000]]}
   "million" {:params [[:k 1000000 20000]]}
   "spawn" {:params [[:k 1000000 20000]]}
   "pingpong" {:params [[:r 1000000 20000]]}
   "ring" {:params [[:t 10000000 100000] [:p 503 503]]
           :validate (fn [{:keys [p]}] (when-not (pos? p) "ring needs p >= 1"))}
   "skynet" {:params [[:l 1000000 10000]] :validate skynet/validate}
   "fanin" {:params [[:s 100 10] [:n 10000000 100000]]
            :validate fanin/validate :fit fanin/fit}
   "call" {:params [[:r 1000000 20000]]}
   "parsum" {:variants ["serial" "spawn" "pool"] :params [[:r 100000 100000] [:reps 100 10]]}
   "copy" {:variants ["seq" "par"] :params [[:n 1000000 100000] [:r 5 2]]}
   "workers" {:variants ["serial" "master_slave" "push" "steal"]
              :params [[:w 2 2] [:n 50000 5000]] :validate workers/validate}})

(def ^:private async-runs
  {"chain" chain/run "million" million/run "spawn" spawn/run "pingpong" pingpong/run
   "ring" ring/run "skynet" skynet/run "fanin" fanin/run "call" call/run
   "parsum" parsum/run "copy" copy/run "workers" workers/run})

(def ^:private agent-runs {"chain" chain-agents/run "ring" ring-agents/run})

(def ^:private buffered-runs
  "The workloads (and variants) where a channel stands in for a mailbox that a sender may
  run ahead of; everywhere else the buffered build would be the same program."
  {"chain" nil "fanin" nil "workers" #{"push"}})

(defn- go-threads!
  "Sizes core.async's go-block pool (a fixed pool of 8 threads unless the
  `clojure.core.async.pool-size` property says otherwise; it is read when the first go block
  runs). `threads` 0 keeps the default."
  [{:keys [threads]}]
  (when (pos? threads)
    (System/setProperty "clojure.core.async.pool-size" (str threads))))

(def impls
  "Each implementation: the runs it has, its own params (printed after the contract's, as
  [name default]), which workloads and variants take `buf`, and how it sets up the
  runtime once before any run."
  {"clojure_agents"
   {:runs agent-runs
    :own [[:send_off 0]]
    :setup (fn [_] nil)
    :opts (fn [{:keys [send_off]}] {:dispatch (agents/dispatcher send_off)})}
   "clojure_agents_tuned"
   {:runs agent-runs
    :own [[:pool 0]]
    :setup (fn [{:keys [pool]}] (agents/use-executor! pool))
    :opts (fn [_] {:dispatch send})}
   "clojure_async"
   {:runs async-runs
    :own [[:buf 0] [:threads 0]]
    :buffered buffered-runs
    :setup go-threads!
    :opts identity}
   "clojure_async_buffered"
   {:runs (select-keys async-runs (keys buffered-runs))
    :variants buffered-runs
    ;; A go pool of one thread per core: core.async's fixed 8 was one per logical core on
    ;; the write-up's machine, and measured slower with buffers on fewer cores (README).
    :own [[:buf 1024] [:threads (.availableProcessors (Runtime/getRuntime))]]
    :buffered buffered-runs
    :setup go-threads!
    :opts identity}})

(defn- skip! [why]
  (println (str "SKIP " why))
  (flush)
  (System/exit 3))

(defn- parse-params
  "k=v words into a map over `known` (a list of [name default ...]); defaults fill in."
  [words known wname]
  (let [names (set (map (comp name first) known))]
    (reduce (fn [acc w]
              (let [[k v] (str/split w #"=" 2)]
                (when (or (str/blank? k) (nil? v)) (c/usage! "param '" w "' is not k=v"))
                (when-not (names k) (c/usage! "unknown param '" k "' for " wname))
                (let [n (try (Long/parseLong (str/replace v "_" "")) (catch NumberFormatException _ -1))]
                  (when (neg? n) (c/usage! "param " k "='" v "' is not a non-negative integer"))
                  (assoc acc (keyword k) n))))
            (into {} (map (fn [[k d]] [k d]) known))
            words)))

(defn- warmup-params
  "The warm-up's sizes: the contract's --quick sizes, or the given ones where smaller."
  [w params]
  (let [p (reduce (fn [p [k _ quick]] (update p k min quick)) params (:params w))]
    ((or (:fit w) identity) p)))

(defn- install-crash-handler!
  "A go block or pool thread that throws is a bug in this program: report it and exit 1
  rather than leave main waiting forever for a reply that will not come."
  []
  (Thread/setDefaultUncaughtExceptionHandler
   (reify Thread$UncaughtExceptionHandler
     (uncaughtException [_ t e]
       (binding [*out* *err*]
         (println "ERROR uncaught in thread" (.getName t) ":" (str e))
         (.printStackTrace e)
         (flush))
       (System/exit 1)))))

(defn- result-line [wname impl variant w params own-params own-values outcome]
  (str/join " " (concat [(str "RESULT bench=" wname) (str "impl=" impl) (str "variant=" variant)]
                        (for [[k] (:params w)] (str (name k) "=" (params k)))
                        (for [[k] own-params] (str (name k) "=" (own-values k)))
                        [(str "wall_ms=" (c/ms (:wall-ns outcome)))]
                        (for [[k v] (:extras outcome)] (str k "=" v)))))

(defn- versions
  "One line naming the versions that ran, for a report's machine header."
  []
  (let [props (java.util.Properties.)]
    (with-open [in (.openStream (io/resource "META-INF/maven/org.clojure/core.async/pom.properties"))]
      (.load props in))
    (str "clojure " (clojure-version) ", core.async " (.getProperty props "version")
         ", java " (System/getProperty "java.version") " (" (System/getProperty "java.vm.name") ")"
         "; JVM: " (str/join " + " (map #(.getName ^java.lang.management.GarbageCollectorMXBean %)
                                         (java.lang.management.ManagementFactory/getGarbageCollectorMXBeans)))
         ", max heap " (bit-shift-right (.maxMemory (Runtime/getRuntime)) 20) " MB"
         (let [flags (str/join " " (.getInputArguments (java.lang.management.ManagementFactory/getRuntimeMXBean)))]
           (if (str/blank? flags) "" (str ", flags " flags))))))

(defn -main [& args]
  (install-crash-handler!)
  (when (= ["--version"] args)
    (println (versions))
    (flush)
    (System/exit 0))
  (let [[impl wname variant & kvs] args
        _ (when (nil? variant) (c/usage! "need an implementation, a workload and a variant"))
        i (or (impls impl) (c/usage! "unknown implementation '" impl "' (one of "
                                     (str/join ", " (sort (keys impls))) ")"))
        w (or (workloads wname) (c/usage! "unknown workload '" wname "'"))
        _ (if-let [vs (:variants w)]
            (when-not (some #{variant} vs)
              (c/usage! "unknown variant '" variant "' for " wname " (one of " (str/join ", " vs) ")"))
            (when (not= variant "-")
              (c/usage! "workload " wname " has no variant; pass -, not '" variant "'")))
        run (or (get-in i [:runs wname])
                (skip! (str impl " does not implement " wname)))
        _ (when-let [vs (get-in i [:variants wname])]
            (when-not (vs variant) (skip! (str impl " has only " (str/join ", " (sort vs)) " for " wname))))
        ;; `buf` applies only where a channel stands in for a mailbox.
        takes-buf? (and (contains? (:buffered i {}) wname)
                        (let [vs (get-in i [:buffered wname])] (or (nil? vs) (vs variant))))
        own-params (cond-> (vec (remove #(and (= :buf (first %)) (not takes-buf?)) (:own i)))
                     true (conj [:warmup 1]))
        all (parse-params kvs (concat (:params w) own-params) wname)
        params (select-keys all (map first (:params w)))
        own-values (select-keys all (map first own-params))
        _ (doseq [flag [:warmup :send_off]
                  :when (contains? own-values flag)]
            (when-not (#{0 1} (own-values flag)) (c/usage! (name flag) " must be 0 or 1")))
        _ (when-let [err (and (:validate w) ((:validate w) params))] (c/usage! err))
        _ ((:setup i) own-values)
        opts ((:opts i) own-values)]
    (when (= 1 (:warmup own-values))
      ;; One run at the quick sizes lets the JIT compile the hot paths before the clock
      ;; runs; then collect its garbage so the measured run starts from a clean heap.
      (run variant (warmup-params w params) opts)
      (System/gc))
    (let [outcome (run variant params opts)]
      (println (result-line wname impl variant w params own-params own-values outcome))
      (flush)
      (System/exit 0))))
