package simulator

import "strconv"

// The lock objects of the simulated service. Entering a method marked with
// one of them takes that monitor.
const (
	noLock = iota - 1
	lockInventoryCache
	lockLogAppender
	lockSessionTable
	lockConnectionBag
	lockReferenceQueue
	lockAccountA // the two accounts of the scheduled deadlock
	lockAccountB
	numLocks
)

// lockClass is the class of each lock object, as its objAlloc declares it.
var lockClass = [numLocks]string{
	lockInventoryCache: "com.acme.shop.cache.InventoryCache",
	lockLogAppender:    "org.apache.logging.log4j.core.appender.OutputStreamManager",
	lockSessionTable:   "java.util.Hashtable",
	lockConnectionBag:  "com.zaxxer.hikari.util.ConcurrentBag",
	lockReferenceQueue: "java.lang.ref.ReferenceQueue$Lock",
	lockAccountA:       "com.acme.billing.Account",
	lockAccountB:       "com.acme.billing.Account",
}

// method is one method of the catalog. Methods are referred to by their
// index; callees are the methods it may call.
type method struct {
	class   string // fully qualified
	name    string
	source  string
	start   int64 // first source line
	lines   int64 // length in lines
	lock    int   // monitor taken on entry, or noLock
	callees []int
	cost    int64 // typical self time, in microseconds
}

// The catalog. Indices are named where the world needs them.
const (
	mThreadRun = iota
	mWorkerRun
	mRunWorker
	mTaskThreadRun
	mSocketProcessorDoRun
	mHttp11Service
	mWrapperValveInvoke
	mHTTPServletService
	mDispatch
	mPlaceOrder
	mGetOrder
	mCheckStock
	mCreateOrder
	mFindOrder
	mReserve
	mCacheGet
	mCachePut
	mHashMapGet
	mHashMapPut
	mOrderSave
	mOrderFindByID
	mInventoryDecrement
	mInventoryLoadAll
	mGetConnection
	mPoolGetConnection
	mBagBorrow
	mExecuteUpdate
	mExecuteQuery
	mQueryExecute
	mReceiveChar
	mSocketRead
	mLoggerInfo
	mAppenderAppend
	mManagerWrite
	mFileWrite
	mPaymentCharge
	mURLGetInputStream
	mSessionTouch
	mHashtablePut
	mWriteValueAsString
	mBeanSerialize
	mSettlementRun
	mLedgerPost
	mLedgerAppend
	mTransfer
	mWithdraw
	mDeposit
	mScheduledRun
	mCacheRefresh
	mForkJoinWorkerRun
	mForkJoinRunWorker
	mForkJoinDoExec
	mReportCompute
	mReferenceHandlerRun
	mFinalizerRun
	mQueueRemove
	mObjectWait
	numMethods
)

// catalog lists every method; built by init so that callee lists can name
// indices declared above.
var catalog [numMethods]method

func def(i int, class, name, source string, start, lines int64, lock int, cost int64, callees ...int) {
	catalog[i] = method{class: class, name: name, source: source, start: start, lines: lines, lock: lock, cost: cost, callees: callees}
}

func init() {
	const (
		tomcat = "org.apache.tomcat.util.net."
		coyote = "org.apache.coyote.http11."
		shop   = "com.acme.shop."
		hikari = "com.zaxxer.hikari."
		pg     = "org.postgresql."
		log4j  = "org.apache.logging.log4j."
		bill   = "com.acme.billing."
		juc    = "java.util.concurrent."
	)
	def(mThreadRun, "java.lang.Thread", "run", "Thread.java", 829, 12, noLock, 1)
	def(mWorkerRun, juc+"ThreadPoolExecutor$Worker", "run", "ThreadPoolExecutor.java", 628, 4, noLock, 1)
	def(mRunWorker, juc+"ThreadPoolExecutor", "runWorker", "ThreadPoolExecutor.java", 1128, 40, noLock, 2)
	def(mTaskThreadRun, "org.apache.tomcat.util.threads.TaskThread$WrappingRunnable", "run", "TaskThread.java", 61, 8, noLock, 1)
	def(mSocketProcessorDoRun, tomcat+"NioEndpoint$SocketProcessor", "doRun", "NioEndpoint.java", 1789, 60, noLock, 8)
	def(mHttp11Service, coyote+"Http11Processor", "service", "Http11Processor.java", 391, 120, noLock, 25)
	def(mWrapperValveInvoke, "org.apache.catalina.core.StandardWrapperValve", "invoke", "StandardWrapperValve.java", 197, 90, noLock, 6)
	def(mHTTPServletService, "javax.servlet.http.HttpServlet", "service", "HttpServlet.java", 764, 30, noLock, 3)
	def(mDispatch, "org.springframework.web.servlet.DispatcherServlet", "doDispatch", "DispatcherServlet.java", 1067, 110, noLock, 15,
		mPlaceOrder, mGetOrder, mCheckStock)
	def(mPlaceOrder, shop+"web.OrderController", "placeOrder", "OrderController.java", 48, 22, noLock, 12,
		mCreateOrder, mWriteValueAsString, mLoggerInfo, mSessionTouch)
	def(mGetOrder, shop+"web.OrderController", "getOrder", "OrderController.java", 73, 14, noLock, 6,
		mFindOrder, mWriteValueAsString, mSessionTouch)
	def(mCheckStock, shop+"web.InventoryController", "checkStock", "InventoryController.java", 31, 12, noLock, 4,
		mCacheGet, mWriteValueAsString)
	def(mCreateOrder, shop+"service.OrderService", "createOrder", "OrderService.java", 87, 41, noLock, 20,
		mReserve, mOrderSave, mPaymentCharge, mLoggerInfo)
	def(mFindOrder, shop+"service.OrderService", "findOrder", "OrderService.java", 132, 16, noLock, 5,
		mOrderFindByID, mCacheGet)
	def(mReserve, shop+"service.InventoryService", "reserve", "InventoryService.java", 55, 28, noLock, 9,
		mCacheGet, mInventoryDecrement)
	def(mCacheGet, shop+"cache.InventoryCache", "get", "InventoryCache.java", 41, 11, lockInventoryCache, 4, mHashMapGet)
	def(mCachePut, shop+"cache.InventoryCache", "put", "InventoryCache.java", 57, 9, lockInventoryCache, 5, mHashMapPut)
	def(mHashMapGet, "java.util.HashMap", "get", "HashMap.java", 556, 4, noLock, 1)
	def(mHashMapPut, "java.util.HashMap", "put", "HashMap.java", 610, 3, noLock, 1)
	def(mOrderSave, shop+"repo.OrderRepository", "save", "OrderRepository.java", 38, 25, noLock, 10,
		mGetConnection, mExecuteUpdate)
	def(mOrderFindByID, shop+"repo.OrderRepository", "findById", "OrderRepository.java", 70, 19, noLock, 8,
		mGetConnection, mExecuteQuery)
	def(mInventoryDecrement, shop+"repo.InventoryRepository", "decrement", "InventoryRepository.java", 44, 17, noLock, 7,
		mGetConnection, mExecuteUpdate)
	def(mInventoryLoadAll, shop+"repo.InventoryRepository", "loadAll", "InventoryRepository.java", 66, 30, noLock, 40,
		mGetConnection, mExecuteQuery)
	def(mGetConnection, hikari+"HikariDataSource", "getConnection", "HikariDataSource.java", 100, 28, noLock, 2, mPoolGetConnection)
	def(mPoolGetConnection, hikari+"pool.HikariPool", "getConnection", "HikariPool.java", 163, 40, noLock, 3, mBagBorrow)
	def(mBagBorrow, hikari+"util.ConcurrentBag", "borrow", "ConcurrentBag.java", 127, 60, lockConnectionBag, 6)
	def(mExecuteUpdate, pg+"jdbc.PgPreparedStatement", "executeUpdate", "PgPreparedStatement.java", 152, 12, noLock, 30, mQueryExecute)
	def(mExecuteQuery, pg+"jdbc.PgPreparedStatement", "executeQuery", "PgPreparedStatement.java", 130, 15, noLock, 40, mQueryExecute)
	def(mQueryExecute, pg+"core.v3.QueryExecutorImpl", "execute", "QueryExecutorImpl.java", 356, 80, noLock, 20, mReceiveChar)
	def(mReceiveChar, pg+"core.PGStream", "receiveChar", "PGStream.java", 467, 6, noLock, 4, mSocketRead)
	def(mSocketRead, "java.net.SocketInputStream", "read", "SocketInputStream.java", 168, 30, noLock, 300)
	def(mLoggerInfo, log4j+"spi.AbstractLogger", "info", "AbstractLogger.java", 1302, 5, noLock, 3, mAppenderAppend)
	def(mAppenderAppend, log4j+"core.appender.AbstractOutputStreamAppender", "append", "AbstractOutputStreamAppender.java", 181, 14, noLock, 4, mManagerWrite)
	def(mManagerWrite, log4j+"core.appender.OutputStreamManager", "write", "OutputStreamManager.java", 250, 12, lockLogAppender, 8, mFileWrite)
	def(mFileWrite, "java.io.FileOutputStream", "write", "FileOutputStream.java", 354, 3, noLock, 60)
	def(mPaymentCharge, shop+"payment.PaymentClient", "charge", "PaymentClient.java", 64, 35, noLock, 15, mURLGetInputStream)
	def(mURLGetInputStream, "sun.net.www.protocol.http.HttpURLConnection", "getInputStream", "HttpURLConnection.java", 1592, 40, noLock, 20, mSocketRead)
	def(mSessionTouch, shop+"web.SessionRegistry", "touch", "SessionRegistry.java", 29, 8, lockSessionTable, 2, mHashtablePut)
	def(mHashtablePut, "java.util.Hashtable", "put", "Hashtable.java", 465, 20, noLock, 1)
	def(mWriteValueAsString, "com.fasterxml.jackson.databind.ObjectMapper", "writeValueAsString", "ObjectMapper.java", 3964, 14, noLock, 18, mBeanSerialize)
	def(mBeanSerialize, "com.fasterxml.jackson.databind.ser.BeanSerializer", "serialize", "BeanSerializer.java", 178, 12, noLock, 25)
	def(mSettlementRun, bill+"SettlementJob", "run", "SettlementJob.java", 40, 30, noLock, 10, mLedgerPost, mTransfer)
	def(mLedgerPost, bill+"LedgerService", "post", "LedgerService.java", 77, 26, noLock, 12, mLedgerAppend, mLoggerInfo)
	def(mLedgerAppend, bill+"LedgerRepository", "append", "LedgerRepository.java", 33, 18, noLock, 9, mGetConnection, mExecuteUpdate)
	def(mTransfer, bill+"AccountService", "transfer", "AccountService.java", 58, 24, noLock, 6, mWithdraw)
	def(mWithdraw, bill+"Account", "withdraw", "Account.java", 91, 13, lockAccountA, 3, mDeposit)
	def(mDeposit, bill+"Account", "deposit", "Account.java", 78, 10, lockAccountB, 3)
	def(mScheduledRun, juc+"ScheduledThreadPoolExecutor$ScheduledFutureTask", "run", "ScheduledThreadPoolExecutor.java", 305, 10, noLock, 1, mCacheRefresh)
	def(mCacheRefresh, shop+"cache.CacheRefresher", "refresh", "CacheRefresher.java", 25, 20, noLock, 30, mInventoryLoadAll, mCachePut)
	def(mForkJoinWorkerRun, juc+"ForkJoinWorkerThread", "run", "ForkJoinWorkerThread.java", 165, 10, noLock, 1)
	def(mForkJoinRunWorker, juc+"ForkJoinPool", "runWorker", "ForkJoinPool.java", 1458, 30, noLock, 2)
	def(mForkJoinDoExec, juc+"ForkJoinTask", "doExec", "ForkJoinTask.java", 373, 10, noLock, 1, mReportCompute)
	def(mReportCompute, shop+"report.ReportTask", "compute", "ReportTask.java", 52, 44, noLock, 35, mReportCompute, mOrderFindByID)
	def(mReferenceHandlerRun, "java.lang.ref.Reference$ReferenceHandler", "run", "Reference.java", 215, 8, noLock, 1)
	def(mFinalizerRun, "java.lang.ref.Finalizer$FinalizerThread", "run", "Finalizer.java", 172, 20, noLock, 1, mQueueRemove)
	def(mQueueRemove, "java.lang.ref.ReferenceQueue", "remove", "ReferenceQueue.java", 155, 25, lockReferenceQueue, 1, mObjectWait)
	def(mObjectWait, "java.lang.Object", "wait", "Object.java", -1, 0, noLock, 1)
}

// frameName is the display name of a method in a stack: "pkg.Class.method".
func (m *method) frameName() string { return m.class + "." + m.name }

// simpleName is the class name without its package.
func simpleName(class string) string {
	for i := len(class) - 1; i >= 0; i-- {
		if class[i] == '.' {
			return class[i+1:]
		}
	}
	return class
}

// threadKind says what a thread does.
type threadKind uint8

const (
	kindIdle      threadKind = iota // a JVM thread that never runs Java code here
	kindHTTP                        // a Tomcat request worker
	kindBilling                     // a settlement pool worker
	kindScheduler                   // the cache refresher
	kindForkJoin                    // a common-pool worker
	kindFinalizer                   // waits on the reference queue; woken by GC
)

// baseStack is the framework stack a thread of each kind runs its work
// from, outermost first.
var baseStack = map[threadKind][]int{
	kindHTTP:      {mThreadRun, mTaskThreadRun, mWorkerRun, mRunWorker, mSocketProcessorDoRun, mHttp11Service, mWrapperValveInvoke, mHTTPServletService, mDispatch},
	kindBilling:   {mThreadRun, mWorkerRun, mRunWorker, mSettlementRun},
	kindScheduler: {mThreadRun, mWorkerRun, mRunWorker, mScheduledRun},
	kindForkJoin:  {mForkJoinWorkerRun, mForkJoinRunWorker, mForkJoinDoExec},
	kindFinalizer: {mThreadRun, mFinalizerRun},
}

// threadSpec is one thread the service starts with.
type threadSpec struct {
	name, group string
	kind        threadKind
}

// initialThreads lists the service's threads at start-up: dozens, in groups.
func initialThreads() []threadSpec {
	out := []threadSpec{
		{"main", "main", kindIdle},
		{"Reference Handler", "system", kindIdle},
		{"Finalizer", "system", kindFinalizer},
		{"Signal Dispatcher", "system", kindIdle},
		{"Common-Cleaner", "InnocuousThreadGroup", kindIdle},
		{"C2 CompilerThread0", "system", kindIdle},
		{"C1 CompilerThread0", "system", kindIdle},
		{"Attach Listener", "system", kindIdle},
		{"http-nio-8080-Acceptor", "main", kindIdle},
		{"http-nio-8080-Poller", "main", kindIdle},
		{"HikariPool-1 housekeeper", "main", kindIdle},
		{"kafka-producer-network-thread | producer-1", "main", kindIdle},
		{"scheduling-1", "main", kindScheduler},
	}
	for i := 1; i <= 24; i++ {
		out = append(out, threadSpec{"http-nio-8080-exec-" + strconv.Itoa(i), "main", kindHTTP})
	}
	for i := 1; i <= 6; i++ {
		out = append(out, threadSpec{"pool-2-thread-" + strconv.Itoa(i), "main", kindBilling})
	}
	for i := 1; i <= 4; i++ {
		out = append(out, threadSpec{"ForkJoinPool.commonPool-worker-" + strconv.Itoa(i), "main", kindForkJoin})
	}
	return out
}
