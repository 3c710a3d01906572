# The C++ library's API as the binding sees it: declarations of dybatch's public headers (through
# <dybatch.h>), nothing implemented here. Every call that can throw is `except +`, so that a C++
# exception becomes a Python one with the library's message (invalid_argument: ValueError,
# out_of_range: IndexError, runtime_error: RuntimeError).
from libc.stdint cimport uint32_t, uint64_t
from libcpp cimport bool
from libcpp.memory cimport shared_ptr, unique_ptr
from libcpp.string cimport string
from libcpp.utility cimport pair
from libcpp.vector cimport vector


cdef extern from "<dybatch.h>" namespace "dynet":
    cdef cppclass CDim "dynet::Dim":
        unsigned d[7]
        unsigned nd
        unsigned bd
        CDim()
        CDim(const vector[unsigned]& dims, unsigned batch) except +
        @staticmethod
        CDim of_parameter(const vector[unsigned]& dims) except +
        size_t size()
        size_t batch_size()

    cdef cppclass CDevice "dynet::Device":
        string name

    cdef cppclass CTensor "dynet::Tensor":
        CDim d
        float* v
        CDevice* device
    vector[float] as_vector(const CTensor& t) except +

    cdef cppclass CIndexTensor "dynet::IndexTensor":
        CDim d

    cdef cppclass CTensorTools "dynet::TensorTools":
        @staticmethod
        CIndexTensor argmax(const CTensor& v, unsigned dim, unsigned num) except +
        @staticmethod
        pair[CTensor, CIndexTensor] topk(const CTensor& v, unsigned dim, unsigned num) except +
        @staticmethod
        CIndexTensor categorical_sample_log_prob(const CTensor& v, unsigned dim, unsigned num) except +

    cdef cppclass CComputationGraph "dynet::ComputationGraph"

    cdef cppclass CExpression "dynet::Expression":
        CComputationGraph* pg
        unsigned i
        uint32_t epoch
        uint64_t graph_id
        CExpression()
        const CDim& dim() except +
        CTensor value() except +
        CTensor gradient() except +
        bool is_stale()

    cdef cppclass CComputationGraph "dynet::ComputationGraph":
        CComputationGraph() except +
        CTensor forward(const CExpression& last) except +
        CTensor incremental_forward(const CExpression& last) except +
        void invalidate()
        void backward(const CExpression& last, bool full) except +
        void checkpoint() except +
        void revert() except +
        void clear() except +
        void set_immediate_compute(bool ic)
        void set_check_validity(bool cv)
        unsigned size()
        unsigned get_id()
        void print_graphviz() except +
        void dump(const string& filename, bool show_values, bool show_gradients, bool nan_check_only) except +
        void set_autobatch(int strategy) except +
        int autobatch()

    # Parameters
    cdef cppclass CParameterStorage "dynet::ParameterStorage":
        string name
        CDim dim
        CTensor values
        CTensor g
        void clip(float left, float right) except +
    cdef cppclass CLookupParameterStorage "dynet::LookupParameterStorage":
        string name
        CDim dim
        unsigned n
        CDim all_dim
        CTensor all_values
        CTensor all_grads

    cdef cppclass CParameter "dynet::Parameter":
        shared_ptr[CParameterStorage] p
        CParameter()
        CParameterStorage& get_storage() except +
        CDim dim() except +
        float current_weight_decay() except +
        const string& get_fullname() except +
        bool is_updated() except +
        void set_updated(bool b) except +
        void set_value(const vector[float]& v) except +
        void zero() except +
        void scale(float a) except +
        void scale_gradient(float a) except +
        void clip_inplace(float left, float right) except +

    cdef cppclass CLookupParameter "dynet::LookupParameter":
        shared_ptr[CLookupParameterStorage] p
        CLookupParameter()
        CLookupParameterStorage& get_storage() except +
        CDim dim() except +
        unsigned size() except +
        float current_weight_decay() except +
        const string& get_fullname() except +
        bool is_updated() except +
        void set_updated(bool b) except +
        void initialize(unsigned i, const vector[float]& v) except +
        void zero() except +
        void scale(float a) except +
        void scale_gradient(float a) except +

    cdef cppclass CParameterInit "dynet::ParameterInit"
    cdef cppclass CL2WeightDecay "dynet::L2WeightDecay":
        float get_lambda()
        float current_weight_decay()

    cdef cppclass CParameterCollection "dynet::ParameterCollection":
        CParameterCollection() except +
        CParameterCollection(const CParameterCollection&)
        CParameter add_parameters(const CDim& d, const CParameterInit& init, const string& name, CDevice* device) except +
        CLookupParameter add_lookup_parameters(unsigned n, const CDim& d, const CParameterInit& init,
                                               const string& name, CDevice* device) except +
        CParameterCollection add_subcollection(const string& name) except +
        vector[shared_ptr[CParameterStorage]] parameters_list()
        vector[shared_ptr[CLookupParameterStorage]] lookup_parameters_list()
        const string& get_fullname()
        size_t parameter_count()
        float weight_decay_lambda()
        void set_weight_decay_lambda(float lam) except +
        CL2WeightDecay& get_weight_decay()

    cdef cppclass CFileSaver "dynet::FileSaver":
        void save(const CParameterCollection& model, const string& key) except +
        void save(const CParameter& param, const string& key) except +
        void save(const CLookupParameter& param, const string& key) except +
    cdef cppclass CTextFileSaver "dynet::TextFileSaver"(CFileSaver):
        CTextFileSaver(const string& path, bool append) except +
    cdef cppclass CFileLoader "dynet::FileLoader":
        void populate(CParameterCollection& model, const string& key) except +
        void populate(CParameter& param, const string& key) except +
        void populate(CLookupParameter& param, const string& key) except +
        CParameter load_param(CParameterCollection& model, const string& key) except +
        CLookupParameter load_lookup_param(CParameterCollection& model, const string& key) except +
    cdef cppclass CTextFileLoader "dynet::TextFileLoader"(CFileLoader):
        CTextFileLoader(const string& path) except +

    # Initialization
    cdef cppclass CDynetParams "dynet::DynetParams":
        string mem_descriptor
        unsigned random_seed
        int autobatch
        int vertex
        int profiling
        float weight_decay
        unsigned threads
        vector[int] gpu_ids
        bint debug_memory
        bint guard_device_memory
        bint shared_parameters
    CDynetParams extract_dynet_params(int& argc, char**& argv, bool shared_parameters) except +
    void initialize(CDynetParams& params) except +
    const CDynetParams& current_params()
    unsigned random_seed_in_use()

    cdef cppclass CRandomEngine "dynet::RandomEngine":
        void seed(uint64_t s)
    CRandomEngine& random_engine()

    # Builders
    cdef cppclass CBuilderParameters "dynet::BuilderParameters":
        CParameterCollection& get_parameter_collection()
        vector[vector[CParameter]] params
        vector[vector[CExpression]] parameter_expressions()
        unsigned layers()
        unsigned input_dim()
        unsigned hidden_dim()

    cdef cppclass CRNNBuilder "dynet::RNNBuilder"(CBuilderParameters):
        void new_graph(CComputationGraph& cg, bool update) except +
        void start_new_sequence(const vector[CExpression]& h_0) except +
        CExpression add_input(int prev, const CExpression& x) except +
        int state()
        int get_head(int p) except +
        CExpression set_h(int prev, const vector[CExpression]& h_new) except +
        CExpression set_s(int prev, const vector[CExpression]& s_new) except +
        vector[CExpression] get_h(int i) except +
        vector[CExpression] get_s(int i) except +
        unsigned num_h0_components()
        void set_dropout(float d) except +
        void set_dropout(float d, float d_h) except +
        void disable_dropout()
        void set_dropout_masks(unsigned batch_size) except +

    cdef cppclass CSoftmaxBuilder "dynet::SoftmaxBuilder":
        void new_graph(CComputationGraph& cg, bool update) except +
        CExpression neg_log_softmax(const CExpression& rep, unsigned class_index) except +
        CExpression neg_log_softmax(const CExpression& rep, const vector[unsigned]& class_indices) except +
        unsigned sample(const CExpression& rep) except +
        CExpression full_log_distribution(const CExpression& rep) except +
        CExpression full_logits(const CExpression& rep) except +
        CParameterCollection& get_parameter_collection()

    # Trainers
    cdef cppclass CTrainer "dynet::Trainer":
        void update() except +
        void update(const vector[unsigned]& updated_params, const vector[unsigned]& updated_lookup_params) except +
        void update_epoch(float r) except +
        void restart() except +
        void restart(float lr) except +
        void status() except +
        const char* name()
        float learning_rate
        bool clipping_enabled
        float clip_threshold
        bool sparse_updates_enabled
        bool flush_denormals


# Small glue the library does not have in this form (python/dynet/glue.h). The make_* functions
# return a new object the caller owns.
cdef extern from "glue.h" namespace "dynet_python":
    CExpression input_tensor(CComputationGraph& cg, const CDim& d, const float* data) except +
    CExpression input_sparse(CComputationGraph& cg, const CDim& d, const vector[unsigned]& ids,
                             const vector[float]& data, float defval) except +
    CParameterInit* make_initializer(const string& kind, float a, float b, const vector[float]& values,
                                                const string& path) except +
    CRNNBuilder* make_rnn_builder(const string& kind, unsigned layers, unsigned input_dim,
                                             unsigned hidden_dim, CParameterCollection& model, bool flag,
                                             float forget_bias) except +
    CSoftmaxBuilder* make_standard_softmax(unsigned rep_dim, unsigned classes, CParameterCollection& model,
                                                      bool bias) except +
    CTrainer* make_trainer(const string& kind, CParameterCollection& model, const vector[float]& args) except +
    CFileSaver* new_saver(const string& path, bool append) except +
    CFileLoader* new_loader(const string& path) except +
    void copy_from_host(const CTensor& t, const float* data, size_t n) except +
    vector[long] index_values(const CIndexTensor& t) except +

cdef extern from "<dybatch.h>" namespace "dynet":
    cdef cppclass CCompactVanillaLSTMBuilder "dynet::CompactVanillaLSTMBuilder"(CRNNBuilder):
        void set_weightnoise(float std) except +
    cdef cppclass CSparseLSTMBuilder "dynet::SparseLSTMBuilder"(CRNNBuilder):
        void set_sparsity(float sparsity) except +

cdef extern from "<dybatch.h>" namespace "dynet":
    cdef cppclass CBiRNNBuilder "dynet::BiRNNBuilder":
        void new_graph(CComputationGraph& cg, bool update) except +
        vector[CExpression] transduce(const vector[CExpression]& xs) except +
        vector[pair[CExpression, CExpression]] add_inputs(const vector[CExpression]& xs) except +
        void set_dropout(float d, float d_h) except +
        void disable_dropout() except +
        CParameterCollection& get_parameter_collection()
        unsigned layers()
        unsigned input_dim()
        unsigned hidden_dim()
        CRNNBuilder& forward_builder(unsigned layer) except +
        CRNNBuilder& backward_builder(unsigned layer) except +

cdef extern from "glue.h" namespace "dynet_python":
    CBiRNNBuilder* make_birnn(const string& kind, unsigned layers, unsigned input_dim, unsigned hidden_dim,
                              CParameterCollection& model) except +

cdef extern from "glue.h" namespace "dynet_python":
    cdef cppclass CClassFactored "dynet_python::ClassFactoredWithDict"(CSoftmaxBuilder):
        CExpression class_log_distribution(const CExpression& rep) except +
        CExpression class_logits(const CExpression& rep) except +
        CExpression subclass_log_distribution(const CExpression& rep, unsigned c) except +
        CExpression subclass_logits(const CExpression& rep, unsigned c) except +
        vector[string] words() except +
    CClassFactored* make_class_factored(unsigned rep_dim, const string& cluster_file, const vector[string]& words,
                                        CParameterCollection& model, bool bias) except +

cdef extern from "dynet_core/device/device_manager.h" namespace "dynet":
    cdef cppclass CDeviceManager "dynet::DeviceManager":
        size_t num_devices()
        CDevice* get(size_t i) except +
        CDevice* get_global_device(const string& name) except +
    CDeviceManager* get_device_manager() except +
